import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../contract/index.js';

export { PASSWORD_MAX, PASSWORD_MIN };

/**
 * Password storage: scrypt, 16-byte salt, 32-byte hash, encoded as
 * `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>` (base64url). The stored form carries its parameters, so a hash
 * made with other parameters (older, or the tests' cheap ones) still verifies with whatever is configured.
 */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, encoded: string): Promise<boolean>;
}

export interface ScryptParameters {
  /** log2 of the cost N. */
  logN: number;
  r: number;
  p: number;
}

/** The OWASP parameters (N=2^17, r=8, p=1): what every installation uses. */
export const OWASP_SCRYPT: ScryptParameters = { logN: 17, r: 8, p: 1 };

const KEY_LENGTH = 32;

function scrypt(password: string, salt: Buffer, { logN, r, p }: ScryptParameters): Promise<Buffer> {
  const N = 2 ** logN;
  return new Promise((resolve, reject) => {
    // maxmem must exceed 128 * N * r bytes (128 MiB at the OWASP parameters) or Node refuses them.
    scryptCallback(password, salt, KEY_LENGTH, { N, r, p, maxmem: 256 * N * r }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

async function hashWith(parameters: ScryptParameters, password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, parameters);
  const { logN, r, p } = parameters;
  return ['scrypt', logN, r, p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

async function verifyEncoded(password: string, encoded: string): Promise<boolean> {
  const [scheme, logN, r, p, salt, hash] = encoded.split('$');
  if (scheme !== 'scrypt' || !logN || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const parameters = { logN: Number(logN), r: Number(r), p: Number(p) };
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), parameters);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** New hashes at `parameters`; verification reads the parameters stored with each hash. */
export function createScryptHasher(parameters: ScryptParameters = OWASP_SCRYPT): PasswordHasher {
  return { hash: (password) => hashWith(parameters, password), verify: verifyEncoded };
}

// The most common passwords of at least 8 characters in public breach corpora; refused outright.
const COMMON = new Set(
  `password 12345678 123456789 1234567890 qwertyuiop qwerty123 password1 password123 11111111
  00000000 iloveyou 1q2w3e4r 1q2w3e4r5t sunshine princess football baseball welcome1 welcome123
  abc12345 abcd1234 letmein1 trustno1 superman starwars dragon123 monkey123 master123 passw0rd
  p@ssw0rd p@ssword qwerty12 asdfghjk zxcvbnm1 987654321 88888888 12341234 123123123 qazwsxedc
  1qaz2wsx 12qwaszx changeme administrator admin123 football1 computer internet michelle jennifer
  whatever corvette mercedes q1w2e3r4 q1w2e3r4t5 aaaaaaaa 123qweasd qwertyui 1234qwer password!`.split(/\s+/),
);

/** Returns a message when the password is unacceptable (api-decisions §9: length only, and not common). */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN) return `Password must be at least ${PASSWORD_MIN} characters`;
  if (password.length > PASSWORD_MAX) return `Password must be at most ${PASSWORD_MAX} characters`;
  if (COMMON.has(password.toLowerCase())) return 'Password is too common; choose another';
  return undefined;
}

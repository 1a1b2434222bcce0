import type { Actor } from '../common/actor.js';
import type { PromptRecord } from '../prompts/prompt-store.js';
import {
  artifactLine,
  artifactVersionLine,
  memoryLine,
  memoryVersionLine,
  noCounts,
  promptLine,
} from './bundle-mapping.js';
import { BUNDLE_FORMAT, BUNDLE_VERSION, type BundleLine } from './bundle-schemas.js';
import type { BundleServiceDeps } from './bundle-service.js';

/** A user's whole content as bundle lines, read in bounded batches (never all at once). */
export async function* exportBundle({ bundles, clock }: BundleServiceDeps, actor: Actor): AsyncGenerator<BundleLine> {
  const userId = actor.userId;
  const counts = noCounts();
  yield { type: 'header', format: BUNDLE_FORMAT, version: BUNDLE_VERSION, exported_at: clock.now().toISOString() };

  for (let after = ''; ; ) {
    const batch = await bundles.prompts(userId, after, 100);
    if (batch.length === 0) break;
    const ids = batch.map((p) => p.id);
    const versions = await bundles.promptVersions(userId, ids);
    const environments = await bundles.promptEnvironments(userId, ids);
    for (const p of batch) {
      counts.prompts++;
      yield promptLine(p, versions.get(p.id) ?? [], environments.get(p.id));
    }
    after = (batch[batch.length - 1] as PromptRecord).id;
  }

  for (let after = 0; ; ) {
    const batch = await bundles.memories(userId, after, 500);
    if (batch.length === 0) break;
    const last = batch[batch.length - 1]?.seq ?? after;
    // The batch's kept versions in the same order (memory, then version), read 100 at a time alongside.
    const versions = batchVersions(bundles, userId, { after, last });
    let next = await versions.next();
    for (const m of batch) {
      counts.memories++;
      yield memoryLine(m);
      while (!next.done && next.value.seq === m.seq) {
        yield memoryVersionLine(m.id, next.value);
        next = await versions.next();
      }
    }
    after = last;
  }

  // Artifacts are large: a few at a time, and their kept versions a few at a time.
  for (let after = 0; ; ) {
    const batch = await bundles.artifacts(userId, after, 10);
    if (batch.length === 0) break;
    for (const a of batch) {
      counts.artifacts++;
      yield artifactLine(a);
      for (let afterVersion = 0; ; ) {
        const versions = await bundles.artifactVersions(userId, a.id, afterVersion, 10);
        if (versions.length === 0) break;
        for (const v of versions) {
          yield artifactVersionLine(a, v);
        }
        afterVersion = versions[versions.length - 1]?.version ?? afterVersion;
      }
    }
    after = batch[batch.length - 1]?.seq ?? after;
  }

  yield { type: 'end', counts };
}

/** The kept versions of one batch of memories, in (memory, version) order, a bounded page at a time. */
async function* batchVersions(
  bundles: BundleServiceDeps['bundles'],
  userId: string,
  seqs: { after: number; last: number },
) {
  const PAGE = 100;
  for (let from = { seq: seqs.after, version: 0 }; ; ) {
    const page = await bundles.memoryVersions(userId, seqs, from, PAGE);
    yield* page;
    const end = page[page.length - 1];
    if (page.length < PAGE || !end) return;
    from = { seq: end.seq, version: end.version };
  }
}

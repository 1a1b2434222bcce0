/**
 * The API's numeric limits (docs/security.md lists them all). The domain's schemas build their rules from
 * these, and the dashboard and the CLI size their fields from them, so a limit changed here changes on every
 * surface at once. Messages that quote a limit are the domain's.
 */

/** Slugs: 1–100 characters (api-decisions §5). */
export const SLUG_MAX = 100;
/** Hierarchical project names: at most 200 characters (api-decisions §6). */
export const PROJECT_MAX = 200;

/** Labels of prompts and artifacts: at most 10, each 1–50 characters. */
export const MAX_LABELS = 10;
export const LABEL_MAX = 50;

/** Metadata (memories and artifacts): a JSON object of at most 16 KiB, 32 levels deep, keys ≤ 256 characters. */
export const METADATA_MAX_BYTES = 16 * 1024;
export const METADATA_MAX_DEPTH = 32;
export const METADATA_KEY_MAX = 256;

/** A search string, on every surface, before it is split into words. */
export const SEARCH_MAX = 1000;

/**
 * Pagination (api-decisions §1): 1 ≤ page ≤ 10,000, 1 ≤ per_page ≤ 100 (default 20). The page bound keeps
 * every OFFSET below a million rows.
 */
export const MAX_PAGE = 10_000;
export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 20;

/** Prompts. */
export const PROMPT_TITLE_MAX = 200;
export const PROMPT_DESCRIPTION_MAX = 200;
export const PROMPT_CONTENT_MAX = 100_000;
export const COMMIT_MESSAGE_MAX = 500;
/** Environments (named pointers to versions) per prompt; their names follow the slug rules. */
export const MAX_PROMPT_ENVIRONMENTS = 20;
/** Typed variables (`variable_schema`) and render values. */
export const MAX_SCHEMA_VARIABLES = 100;
export const VARIABLE_NAME_MAX = 100;
export const VARIABLE_DESCRIPTION_MAX = 500;
export const VARIABLE_DEFAULT_MAX = 10_000;
export const VARIABLE_ENUM_MAX = 100;
export const VARIABLE_ENUM_VALUE_MAX = 200;
export const VARIABLE_VALUE_MAX = 100_000;

/** Memories. */
export const MEMORY_TEXT_MAX = 50_000;
export const MAX_TAGS = 20;
export const TAG_MAX = 50;
export const CATEGORY_MAX = 100;
/** Memory history: previous versions kept per memory by default (MEMORY_VERSION_RETENTION), and a preview's length. */
export const MEMORY_VERSION_RETENTION_DEFAULT = 100;
export const MEMORY_VERSION_PREVIEW_CHARS = 200;

/** Artifacts. The content's own limit is the server's ARTIFACT_MAX_BYTES setting, at most 1 GiB. */
export const ARTIFACT_TITLE_MAX = 200;
export const ARTIFACT_DESCRIPTION_MAX = 500;
export const CONTENT_TYPE_MAX = 255;
export const ARTIFACT_CONTENT_HARD_MAX = 1024 * 1024 * 1024;

/** Accounts and keys. */
export const EMAIL_MAX = 254;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
/** Longer passwords are refused before any rule (or scrypt) sees them. */
export const PASSWORD_INPUT_MAX = 1024;
export const INVITE_CODE_MAX = 200;
export const KEY_NAME_MAX = 100;
export const RATE_LIMIT_MAX = 1_000_000_000;

/**
 * Result budgets (`max_chars`, docs/api.md "Budgets"): the most characters a list or context answer may
 * take as JSON text. MCP tools and the context block apply the default when none is given; REST lists only
 * when the client asks. The minimum always leaves room for one item's shortest preview, so an answer shrinks
 * to fit and is never refused for its size.
 */
export const BUDGET_MIN_CHARS = 2_000;
export const BUDGET_MAX_CHARS = 1_000_000;
export const BUDGET_DEFAULT_CHARS = 20_000;
/**
 * List cursors (`cursor`, `next_cursor`) are the position of the next item: below a million, like the deepest
 * page (MAX_PAGE × MAX_PER_PAGE), so no cursor can make a list skip an unbounded number of rows.
 */
export const CURSOR_MAX = 999_999;
/** The task description `GET /context` and `svc_get_context` take (its first words become the search). */
export const CONTEXT_TASK_MAX = 2_000;

/**
 * Memory lifecycle (docs/api.md "Expiry, supersede and pin"): the most memories one write may supersede, and
 * the longest `ttl_seconds` (ten years; `expires_at` takes any valid time up to year 9999).
 */
export const MAX_SUPERSEDES = 20;
export const MEMORY_TTL_MAX_SECONDS = 315_360_000;
/** Webhooks (docs/webhooks.md, docs/security.md). */
export const WEBHOOK_URL_MAX = 2_048;
export const WEBHOOK_DESCRIPTION_MAX = 200;
/** Event types one endpoint may list (every type once). */
export const WEBHOOK_EVENTS_MAX = 20;
/** Response bytes of a receiver read into the delivery log; the rest is not read. */
export const WEBHOOK_RESPONSE_READ_MAX = 1_024;
/** Characters of an attempt's error kept in the delivery log. */
export const WEBHOOK_ERROR_MAX = 300;

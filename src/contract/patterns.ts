/**
 * The API's name rules as patterns, for clients that check a name before sending it. Both are linear: no
 * string makes them backtrack.
 */

/** Slugs (api-decisions §5): lowercase ASCII words joined by single hyphens (at most SLUG_MAX characters). */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Hierarchical project names (api-decisions §6): segments of [A-Za-z0-9._-]+ joined by '/' (at most
 * PROJECT_MAX characters). Segments cannot contain '/', so there is one way to match any string.
 */
export const PROJECT_PATTERN = /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;

#!/usr/bin/env bash
# Builds and installs pgvector for the local PostgreSQL from Debian's source package (docs/memory-search.md,
# "PostgreSQL").
#
# Debian bookworm has no binary pgvector package, but Debian's source package (from trixie) builds against
# bookworm's postgresql-server-dev-<major>. The source archive is reached through the mirror this machine's
# apt already uses: the script reads the URI from /etc/apt/sources.list.d/debian.sources (deb822) or, failing
# that, from a `deb` line of /etc/apt/sources.list, and points a private apt configuration (lists in a
# temporary directory) at that mirror's trixie sources. The system's own apt sources are left untouched.
#
# Idempotent: a PostgreSQL major whose extension directory already holds vector.control is skipped
# (PGVECTOR_FORCE=1 builds and installs again).
# Needs root (apt-get install, make install). PG_MAJORS="15 16" overrides the majors found in /etc/postgresql;
# PGVECTOR_SUITE (default trixie) the Debian suite the source comes from; PGVECTOR_APT_SOURCES and
# PGVECTOR_APT_LIST the files the mirror is read from.
set -euo pipefail

SUITE="${PGVECTOR_SUITE:-trixie}"
DEB822="${PGVECTOR_APT_SOURCES:-/etc/apt/sources.list.d/debian.sources}"
ONE_LINE="${PGVECTOR_APT_LIST:-/etc/apt/sources.list}"
majors="${PG_MAJORS:-$(ls /etc/postgresql 2>/dev/null || true)}"
if [ -z "$majors" ]; then
  echo "install-pgvector: no PostgreSQL found in /etc/postgresql (set PG_MAJORS)" >&2
  exit 1
fi

missing=()
for major in $majors; do
  if [ -f "/usr/share/postgresql/${major}/extension/vector.control" ] && [ "${PGVECTOR_FORCE:-}" != 1 ]; then
    echo "install-pgvector: PostgreSQL ${major} already has pgvector"
  else
    missing+=("$major")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "install-pgvector: must run as root (apt-get install, make install)" >&2
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/sources" "$work/build"
# apt downloads as the unprivileged _apt user where it exists: let it write there.
chmod 755 "$work"
if id _apt >/dev/null 2>&1; then chown -R _apt "$work/lists" "$work/build"; fi

# A deb-src entry for $SUITE on the machine's own Debian mirror.
if [ -f "$DEB822" ]; then
  # deb822: the first stanza (the main archive, not -security), as deb-src of $SUITE.
  sed -e 's/^Types: .*/Types: deb-src/' -e "s/^Suites: .*/Suites: ${SUITE}/" "$DEB822" |
    awk 'BEGIN { RS = ""; ORS = "\n\n" } NR == 1' >"$work/sources/pgvector-src.sources"
  grep -q '^URIs: ' "$work/sources/pgvector-src.sources" || {
    echo "install-pgvector: no URIs: line in the first stanza of $DEB822" >&2
    exit 1
  }
elif [ -f "$ONE_LINE" ] && grep -Eq '^deb[[:space:]]' "$ONE_LINE"; then
  # Classic one-line format: `deb [options] URI suite components…`; the first line that is not -security.
  line="$(grep -E '^deb[[:space:]]' "$ONE_LINE" | grep -v -- '-security' | head -n 1)"
  options="$(printf '%s\n' "$line" | sed -n 's/^deb[[:space:]]*\(\[[^]]*\]\).*/\1/p')"
  uri="$(printf '%s\n' "$line" | sed -e 's/^deb[[:space:]]*//' -e 's/^\[[^]]*\][[:space:]]*//' | awk '{ print $1 }')"
  if [ -z "$uri" ]; then
    echo "install-pgvector: could not read a mirror URI from $ONE_LINE" >&2
    exit 1
  fi
  echo "deb-src ${options:+$options }${uri} ${SUITE} main" >"$work/sources/pgvector-src.list"
else
  echo "install-pgvector: no Debian apt source found (neither $DEB822 nor a deb line in $ONE_LINE)" >&2
  exit 1
fi

apt_private=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/sources"
  -o "Dir::State::Lists=$work/lists")
echo "install-pgvector: fetching Debian's pgvector source package (${SUITE})"
apt-get "${apt_private[@]}" update -qq
(cd "$work/build" && apt-get "${apt_private[@]}" source --download-only -qq pgvector)
orig="$(ls "$work"/build/pgvector_*.orig.tar.* | head -n 1)"

for major in "${missing[@]}"; do
  pg_config="/usr/lib/postgresql/${major}/bin/pg_config"
  # The server's headers (postgres.h), not pg_config: the server package itself ships pg_config.
  if ! dpkg-query -W -f='${Status}' "postgresql-server-dev-${major}" 2>/dev/null | grep -q 'ok installed'; then
    echo "install-pgvector: installing postgresql-server-dev-${major}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-server-dev-${major}" >/dev/null || {
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-server-dev-${major}" >/dev/null
    }
  fi
  src="$work/build/pg${major}"
  mkdir -p "$src"
  tar -xf "$orig" -C "$src" --strip-components=1
  # OPTFLAGS="": no -march=native, so the build runs on any machine of the architecture.
  make -s -C "$src" PG_CONFIG="$pg_config" OPTFLAGS=""
  make -s -C "$src" PG_CONFIG="$pg_config" OPTFLAGS="" install
  echo "install-pgvector: PostgreSQL ${major} has pgvector $(sed -n "s/^default_version = '\(.*\)'/\1/p" "/usr/share/postgresql/${major}/extension/vector.control")"
done

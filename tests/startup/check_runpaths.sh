#!/usr/bin/env bash
# Every ELF executable and shared library ktune builds (BUILD_DIR) or installs (into a scratch
# PREFIX) may carry only absolute run-path entries, or $ORIGIN-relative ones that do not climb
# out with "..". An empty entry means the current directory, a relative one a directory below
# it: either lets a folder's own libraries load into ktune (cmake/KtuneRunPath.cmake).
#
#   check_runpaths.sh BUILD_DIR SCRATCH_PREFIX
set -euo pipefail
build=$1 prefix=$2
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null

# The verdict on one run-path entry: empty, relative, escaping, or ok.
verdict() {
    local e=$1
    case $e in
    '') echo empty ;;
    '$ORIGIN' | '${ORIGIN}') echo ok ;;
    '$ORIGIN/'* | '${ORIGIN}/'*)
        case /$e/ in */../*) echo escaping ;; *) echo ok ;; esac ;;
    /*) echo ok ;;
    *) echo relative ;;
    esac
}

# Self-check: the rule itself must reject what it exists to reject.
for bad in '' lib ./lib '$ORIGIN/../lib' '${ORIGIN}/..'; do
    [ "$(verdict "$bad")" != ok ] || { echo "FAIL: the check accepts '$bad'"; exit 1; }
done

roots=("$build")
[[ $prefix/ == "$build"/* ]] || roots+=("$prefix")
checked=0 failed=0 seen_cli=0 seen_inject=0
while IFS= read -r -d '' f; do
    [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
    dyn=$(readelf -d "$f" 2>/dev/null) || continue
    grep -q '(NEEDED)' <<<"$dyn" || continue # static or no dynamic section: nothing to search
    checked=$((checked + 1))
    case $f in */bin/ktune) seen_cli=1 ;; */libktune_inject.so) seen_inject=1 ;; esac
    while IFS= read -r line; do
        paths=${line#*\[}
        paths=${paths%\]*}
        rest=$paths: # a sentinel ':' so that a trailing ':' yields its empty entry
        while [[ $rest == *:* ]]; do
            e=${rest%%:*}
            rest=${rest#*:}
            v=$(verdict "$e")
            if [ "$v" != ok ]; then
                echo "FAIL: $f: $v run-path entry '$e' in [$paths]"
                failed=$((failed + 1))
            fi
        done
    done < <(grep -E '\((RUNPATH|RPATH)\)' <<<"$dyn" || true)
done < <(find "${roots[@]}" -type f \( -perm -u+x -o -name '*.so*' \) \
    ! -name '*.o' ! -name '*.a' -print0)

echo "checked $checked dynamically linked ELF files under $build (install: $prefix)"
[ "$seen_cli" = 1 ] || { echo "FAIL: the installed ktune was not among them"; exit 1; }
[ "$seen_inject" = 1 ] || { echo "FAIL: libktune_inject.so was not among them"; exit 1; }
[ "$failed" = 0 ]

#!/usr/bin/env bash
# The README's ```sh blocks, checked against the CLI that was built: every `ktune ...` line names
# subcommands that exist and only options that its (sub)command's --help lists; every script a
# block runs exists and is executable. A line's `a|b` value means "a or b"; text after ` #` is a
# comment; `\` continues a line; what follows `--` is the profiled program's own command line.
#
#   check_readme_cli.sh README KTUNE SOURCE_DIR
set -euo pipefail
readme=$1 ktune=$2 src=$3

# The lines of every ```sh block, continuations joined, comments removed.
lines=$(awk '
    /^```sh$/ { inblock = 1; next }
    /^```/    { inblock = 0; next }
    inblock {
        line = $0
        sub(/(^| )#.*$/, "", line)
        if (line ~ /\\[ ]*$/) { sub(/\\[ ]*$/, "", line); held = held line " "; next }
        print held line; held = ""
    }' "$readme")

fail=0 checked=0

help_text() { # the --help of a subcommand chain (empty: the root's)
    "$ktune" "$@" --help 2>&1 || echo "(ktune $* --help exits non-zero)"
}

# Does the help of chain ($2...) list subcommand $1? (CLI11 lists them under Subcommands:.)
is_subcommand() {
    local word=$1
    shift
    help_text "$@" | awk 'toupper($0) ~ /^SUBCOMMANDS:/ { s = 1; next } s && NF { print $1 }' |
        grep -qx -- "$word"
}

check_line() {
    local -a words
    read -r -a words <<<"$1"
    [ "${words[0]:-}" = ktune ] || return 0
    checked=$((checked + 1))
    local -a chain=()
    local i=1
    while [ $i -lt ${#words[@]} ] && [[ ${words[$i]} != -* ]]; do
        if is_subcommand "${words[$i]}" "${chain[@]}"; then chain+=("${words[$i]}"); fi
        i=$((i + 1))
    done
    [ ${#chain[@]} -gt 0 ] || [[ ${words[1]:-} == -* ]] || {
        echo "FAIL: README: '$1': '${words[1]:-}' is no ktune subcommand"
        fail=1
        return 0
    }
    local help
    help=$(help_text "${chain[@]}")
    for ((; i < ${#words[@]}; i++)); do
        local w=${words[$i]}
        [ "$w" = -- ] && break
        [[ $w == -* ]] || continue
        local opt=${w%%=*}
        if ! grep -qE -- "(^|[ ,])${opt}([ ,=]|$)" <<<"$help"; then
            echo "FAIL: README: '$1': ktune ${chain[*]} has no option $opt"
            fail=1
        fi
    done
}

while IFS= read -r line; do
    line=${line#"${line%%[![:space:]]*}"}
    case $line in
    ktune\ *) check_line "$line" ;;
    scripts/* | bench/*)
        f=${line%% *}
        [ -x "$src/$f" ] || { echo "FAIL: README runs $f, which is not an executable file"; fail=1; } ;;
    '' | bash\ *) ;;
    *) echo "FAIL: README: a shell line this check does not know: '$line'"; fail=1 ;;
    esac
done <<<"$lines"

# Self-check: an option no command has must be caught.
saved=$fail
fail=0
check_line "ktune top x.ktrace --no-such-option" >/dev/null
[ "$fail" = 1 ] || { echo "FAIL: the check accepts an unknown option"; exit 1; }
fail=$saved

echo "checked $checked ktune command lines of $readme"
[ "$checked" -ge 10 ] || { echo "FAIL: too few ktune lines found: the extraction is broken"; exit 1; }
exit $fail

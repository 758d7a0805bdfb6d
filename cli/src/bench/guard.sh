# Block destructive shell commands: a Claude Code PreToolUse hook (payload JSON on stdin;
# exit 2 with the reason on stderr blocks the call).
cmd=$(jq -r '.tool_input.command // empty')
[ -z "$cmd" ] && exit 0
block() { echo "blocked: $1" >&2; exit 2; }
sep='(^|[;&|({[:space:]])'
end='([;&|)}[:space:]]|$)'
root='(/|/\*|~|~/|\$HOME|\*|\.|/(bin|boot|dev|etc|home|lib|lib64|opt|proc|root|sbin|srv|sys|usr|var)/?)'
re_rm="${sep}rm[[:space:]]+(-[[:alpha:]]*[rR][[:alpha:]]*|--recursive)[[:space:]]+(-[[:alpha:]-]+[[:space:]]+)*${root}${end}"
re_fb=':\(\)[[:space:]]*\{[[:space:]]*:[[:space:]]*\|[[:space:]]*:[[:space:]]*&'
if [[ $cmd == *--no-preserve-root* ]]; then block "rm --no-preserve-root"; fi
if [[ $cmd =~ $re_rm ]]; then block "recursive rm of a root directory"; fi
if [[ $cmd =~ ${sep}mkfs ]]; then block "mkfs formats a filesystem"; fi
if [[ $cmd =~ ${sep}dd[[:space:]].*of=/dev/ ]]; then block "dd onto a device"; fi
if [[ $cmd =~ $re_fb ]]; then block "fork bomb"; fi
exit 0

# scry.bash - bash completion for scry and scryd (installed by `make install` as
# /usr/share/bash-completion/completions/scry; tests/e2e/test_dist.py queries it).
# Commands are listed here; each command's options are read from its own `--help` (its
# usage lines and its option lines), so they follow the program; session names come
# from the running daemon's `scry list` (never starting one).

_scry_commands="record trace view list recover serve top profile daemon create destroy enable-channel
disable-channel enable-event disable-event add-context track untrack start stop status snapshot
rotate enable-rotation disable-rotation save load set-session regenerate"

# The long options of `"$@" --help` (scry COMMAND, or scryd).
_scry_options()
{
	"$@" --help 2>/dev/null | awk '
		/^usage:/ { usage = 1 }
		usage && /^$/ { usage = 0 }
		{
			line = $0
			if (!usage) {      # an option line: its own options, not those of its prose
				if (line !~ /^ +(-[a-zA-Z], )?--[a-z]/)
					next
				sub(/^ +(-[a-zA-Z], )?/, "", line)
				split(line, w, /[ =]/)
				line = w[1]
			}
			while (match(line, /--[a-z][a-z-]*/)) {
				print substr(line, RSTART, RLENGTH)
				line = substr(line, RSTART + RLENGTH)
			}
		}' | sort -u
}

# The daemon's sessions, when one answers ($SCRY_RUNDIR or /run/scry).
_scry_sessions()
{
	[[ -S ${SCRY_RUNDIR:-/run/scry}/control ]] || return
	"$1" list 2>/dev/null | sed -n 's/^ *[0-9]*) \([^ ]*\) \[.*/\1/p'
}

_scry()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd="" i
	local scry=${COMP_WORDS[0]}

	for ((i = 1; i < COMP_CWORD; i++)); do
		[[ ${COMP_WORDS[i]} != -* ]] && { cmd=${COMP_WORDS[i]}; break; }
	done
	if [[ -z $cmd ]]; then
		if [[ ${scry##*/} == scryd ]]; then
			COMPREPLY=($(compgen -W "$(_scry_options "$scry" | tr '\n' ' ') --help" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$_scry_commands --help --version" -- "$cur"))
		fi
		return
	fi
	if [[ $prev == -s || $prev == --session ]] ||
	   [[ $prev == "$cmd" && " set-session start stop destroy rotate save " == *" $cmd "* && $cur != -* ]]; then
		COMPREPLY=($(compgen -W "$(_scry_sessions "$scry" | tr '\n' ' ')" -- "$cur"))
		return
	fi
	case $prev in
	--clock)
		COMPREPLY=($(compgen -W "monotonic boot tai" -- "$cur"))
		return ;;
	--capture)
		COMPREPLY=($(compgen -W "env" -- "$cur"))
		return ;;
	-o|--output|--output-path|-i|--input-path|--record|--config|-C|--metrics|--spans|--track-cgroup)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	-t|--type)
		COMPREPLY=($(compgen -W "$("$scry" list contexts 2>/dev/null | awk 'NR > 1 { print $1 }' | tr '\n' ' ')" -- "$cur"))
		return ;;
	esac
	case $cmd in
	view|list)
		if [[ $cur != -* ]]; then
			COMPREPLY=($(compgen -W "$(_scry_sessions "$scry" | tr '\n' ' ')" -- "$cur") $(compgen -d -- "$cur"))
			return
		fi ;;
	snapshot)
		if ((COMP_CWORD == i + 1)) && [[ $cur != -* ]]; then
			COMPREPLY=($(compgen -W "record" -- "$cur"))
			return
		fi ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_scry_options "$scry" "$cmd" | tr '\n' ' ') --help" -- "$cur"))
	fi
}
complete -F _scry scry scryd

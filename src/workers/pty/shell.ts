/**
 * How forge starts a seat's shell: OSC 133 prompt marks for bash and zsh, installed through the
 * shell's own startup arguments and environment. The user's rc files are read as usual and never
 * written: bash gets `--rcfile` pointing at a file that sources ~/.bashrc first, zsh gets a
 * ZDOTDIR whose files source the user's own ZDOTDIR files first.
 */
import { mkdtempSync, writeFileSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

const BASH_RC = `# forge: prompt marks (OSC 133) for this terminal, after the user's own ~/.bashrc.
if [ -r "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi
__forge_status=0
__forge_started=
__forge_precmd() { __forge_status=$?; }
__forge_prompt() {
  if [ -n "$__forge_started" ]; then builtin printf '\\033]133;D;%s\\007' "$__forge_status"; fi
  __forge_started=1
  case "$PS1" in *'133;A'*) ;; *) PS1='\\[\\033]133;A\\007\\]'"$PS1"'\\[\\033]133;B\\007\\]' ;; esac
}
# Newlines, not ";", join the user's own PROMPT_COMMAND, which may end in ";" or be empty.
PROMPT_COMMAND="__forge_precmd"$'\\n'"\${PROMPT_COMMAND}"$'\\n'"__forge_prompt"
PS0="$PS0"'\\033]133;C\\007'
`;

/** Sourced from the user's ZDOTDIR (or $HOME) before forge's hooks; each file restores ZDOTDIR for the next. */
const ZSH_FILES: Record<string, string> = {
  '.zshenv': `__forge_zdotdir="$ZDOTDIR"; ZDOTDIR="\${FORGE_USER_ZDOTDIR:-$HOME}"; [ -r "$ZDOTDIR/.zshenv" ] && . "$ZDOTDIR/.zshenv"; ZDOTDIR="$__forge_zdotdir"\n`,
  '.zprofile': `ZDOTDIR="\${FORGE_USER_ZDOTDIR:-$HOME}"; [ -r "$ZDOTDIR/.zprofile" ] && . "$ZDOTDIR/.zprofile"; ZDOTDIR="$__forge_zdotdir"\n`,
  '.zshrc': `ZDOTDIR="\${FORGE_USER_ZDOTDIR:-$HOME}"; [ -r "$ZDOTDIR/.zshrc" ] && . "$ZDOTDIR/.zshrc"
__forge_started=
__forge_precmd() { local s=$?; [ -n "$__forge_started" ] && printf '\\033]133;D;%s\\007' "$s"; __forge_started=1; printf '\\033]133;A\\007'; }
__forge_preexec() { printf '\\033]133;C\\007'; }
autoload -Uz add-zsh-hook; add-zsh-hook precmd __forge_precmd; add-zsh-hook preexec __forge_preexec
PS1="$PS1"$'%{\\033]133;B\\007%}'
`,
};

/** `marks`: forge installed OSC 133 marks, so the first prompt will carry one. */
export interface ShellLaunch { file: string; args: string[]; env: Record<string, string>; marks: boolean }

/** Files forge writes for shell startup live here for the life of the worker. */
export class ShellStartup {
  private dir?: string;

  launch(shell: string, env: Record<string, string>): ShellLaunch {
    const name = basename(shell);
    if (name === 'bash') {
      const rc = join(this.ensureDir(), 'bashrc');
      writeFileSync(rc, BASH_RC, { mode: 0o600 });
      return { file: shell, args: ['--rcfile', rc, '-i'], env, marks: true };
    }
    if (name === 'zsh') {
      const zdot = join(this.ensureDir(), 'zsh');
      mkdirSync(zdot, { recursive: true, mode: 0o700 });
      for (const [f, text] of Object.entries(ZSH_FILES)) writeFileSync(join(zdot, f), text, { mode: 0o600 });
      const user = env.ZDOTDIR ?? '';
      return { file: shell, args: ['-i'], env: { ...env, ZDOTDIR: zdot, ...(user ? { FORGE_USER_ZDOTDIR: user } : {}) }, marks: true };
    }
    return { file: shell, args: [], env, marks: false };
  }

  dispose(): void {
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }

  private ensureDir(): string {
    this.dir ??= mkdtempSync(join(tmpdir(), 'forge-shell-'));
    return this.dir;
  }
}

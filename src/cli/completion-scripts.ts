import type { CommandInfo } from './vidkit-cli';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** One place on the command line: the words typed so far (`cloudfn sites`) and what may follow them. */
interface Node {
  path: string;
  subcommands: Array<{ word: string; description: string }>;
  options: Array<{ names: string[]; takesValue: boolean; description: string }>;
}

const HELP_OPTION = { names: ['--help', '-h'], takesValue: false, description: 'Print the help of this command' };

/**
 * The command tree the scripts complete: the root, each group and each command, with the words
 * that may come next and the options taken there. Built-in paths that are flags (`--version`) stay
 * options of the root.
 */
function commandTree(commands: CommandInfo[]): Node[] {
  const nodes = new Map<string, Node>();
  const node = (path: string) => {
    let n = nodes.get(path);
    if (!n) nodes.set(path, (n = { path, subcommands: [], options: [HELP_OPTION] }));
    return n;
  };
  node('');
  for (const c of commands) {
    for (const path of c.paths) {
      if (path.length === 0 || path[0].startsWith('-')) continue;
      for (let i = 0; i < path.length; i++) {
        const parent = node(path.slice(0, i).join(' '));
        const word = path[i];
        const leaf = i === path.length - 1;
        if (!parent.subcommands.some((s) => s.word === word)) parent.subcommands.push({ word, description: leaf ? (c.description ?? '') : 'commands' });
      }
      const here = node(path.join(' '));
      for (const o of c.options) if (!o.hidden) here.options.push({ names: o.names, takesValue: o.takesValue, description: o.description ?? '' });
    }
  }
  node('').options.push({ names: ['--version', '-v'], takesValue: false, description: 'Print the version' });
  return [...nodes.values()];
}

/** The script that teaches `shell` to complete `binary`'s commands and options. */
export function completionScript(shell: Shell, binary: string, commands: CommandInfo[]): string {
  const tree = commandTree(commands);
  if (shell === 'bash') return bashScript(binary, tree);
  if (shell === 'zsh') return zshScript(binary, tree);
  return fishScript(binary, tree);
}

const words = (list: string[]) => list.join(' ');
const valueNames = (n: Node) => n.options.filter((o) => o.takesValue).flatMap((o) => o.names);
const allNames = (n: Node) => n.options.flatMap((o) => o.names);
const fn = (binary: string) => `_${binary.replace(/[^A-Za-z0-9_]/g, '_')}`;

/** A `case` over the command path, one branch a node, each printing `value(node)` with `print`. */
function caseOverPath(tree: Node[], value: (n: Node) => string, print = 'echo'): string {
  const branches = tree.map((n) => `    ${JSON.stringify(n.path)}) ${print} ${shellQuote(value(n))} ;;`);
  return `  case "$1" in\n${branches.join('\n')}\n  esac`;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The walk every script makes over the words before the cursor: a word that names a command or
 * group under the path so far extends the path, the word after an option that takes a value is
 * that value, everything else is an argument.
 */
function bashScript(binary: string, tree: Node[]): string {
  const f = fn(binary);
  return `# ${binary} completion for bash: source it, or save it as ~/.local/share/bash-completion/completions/${binary}
${f}_subcommands() {
${caseOverPath(tree, (n) => words(n.subcommands.map((s) => s.word)))}
}
${f}_options() {
${caseOverPath(tree, (n) => words(allNames(n)))}
}
${f}_value_options() {
${caseOverPath(tree, (n) => words(valueNames(n)))}
}
${f}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" word i value=0
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    if ((value)); then value=0; continue; fi
    if [[ $word == -* ]]; then
      [[ $word != *=* && " $(${f}_value_options "$path") " == *" $word "* ]] && value=1
    elif [[ " $(${f}_subcommands "$path") " == *" $word "* ]]; then
      path="\${path:+$path }$word"
    fi
  done
  COMPREPLY=()
  # An option's value or an argument (a project directory, a file): the shell's own completion.
  ((value)) && return
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(${f}_options "$path")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(${f}_subcommands "$path")" -- "$cur"))
  fi
}
complete -o bashdefault -o default -F ${f} ${binary}
`;
}

function zshScript(binary: string, tree: Node[]): string {
  const f = fn(binary);
  const escape = (s: string) => s.replace(/:/g, '\\:');
  const specs = (entries: Array<[string, string]>) => entries.map(([name, description]) => `${escape(name)}:${oneLine(description)}`).join('\n');
  return `#compdef ${binary}
# ${binary} completion for zsh: save it as _${binary} in a directory of $fpath, or source it after compinit
${f}_subcommands() {
${caseOverPath(tree, (n) => specs(n.subcommands.map((s) => [s.word, s.description])), 'print -r --')}
}
${f}_options() {
${caseOverPath(tree, (n) => specs(n.options.flatMap((o) => o.names.map((name): [string, string] => [name, o.description]))), 'print -r --')}
}
${f}_value_options() {
${caseOverPath(tree, (n) => words(valueNames(n)))}
}
${f}() {
  local cmd="" word value=0 i
  local -a subcommands options
  for ((i = 2; i < CURRENT; i++)); do
    word=\${words[i]}
    if ((value)); then value=0; continue; fi
    if [[ $word == -* ]]; then
      [[ $word != *=* && " $(${f}_value_options "$cmd") " == *" $word "* ]] && value=1
    else
      subcommands=(\${(f)"$(${f}_subcommands "$cmd")"})
      (( \${subcommands[(I)\${word}:*]} )) && cmd="\${cmd:+$cmd }$word"
    fi
  done
  if ((value)); then _files; return; fi
  if [[ $PREFIX == -* ]]; then
    options=(\${(f)"$(${f}_options "$cmd")"})
    _describe -t options option options
    return
  fi
  subcommands=(\${(f)"$(${f}_subcommands "$cmd")"})
  if (( \${#subcommands} )); then _describe -t commands command subcommands; else _files; fi
}
if [[ \${funcstack[1]} == ${f} ]]; then ${f} "$@"; else compdef ${f} ${binary}; fi
`;
}

function fishScript(binary: string, tree: Node[]): string {
  const f = `__${binary.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const quote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const lines = [
    `# ${binary} completion for fish: save it as ~/.config/fish/completions/${binary}.fish`,
    `function ${f}_subcommands`,
    '  switch $argv[1]',
    ...tree.map((n) => `    case ${quote(n.path)}\n      echo ${quote(words(n.subcommands.map((s) => s.word)))}`),
    '  end',
    'end',
    `function ${f}_value_options`,
    '  switch $argv[1]',
    ...tree.map((n) => `    case ${quote(n.path)}\n      echo ${quote(words(valueNames(n)))}`),
    '  end',
    'end',
    '# The command path typed so far: the walk of the bash and zsh scripts.',
    `function ${f}_path`,
    '  set -l path ""',
    '  set -l value 0',
    '  set -l tokens (commandline -opc)',
    '  set -e tokens[1]',
    '  for word in $tokens',
    '    if test $value = 1',
    '      set value 0',
    '    else if string match -q -- "-*" $word',
    `      if not string match -q -- "*=*" $word; and contains -- $word (string split -- " " (${f}_value_options "$path"))`,
    '        set value 1',
    '      end',
    `    else if contains -- $word (string split -- " " (${f}_subcommands "$path"))`,
    '      set path (string trim -- "$path $word")',
    '    end',
    '  end',
    '  echo $path',
    'end',
    `function ${f}_at`,
    `  set -l path (${f}_path)`,
    '  test "$path" = "$argv[1]"',
    'end',
    `complete -c ${binary} -f`,
  ];
  for (const n of tree) {
    const at = `-n ${quote(`${f}_at ${quote(n.path)}`)}`;
    for (const s of n.subcommands) lines.push(`complete -c ${binary} ${at} -a ${quote(s.word)} -d ${quote(oneLine(s.description))}`);
    for (const o of n.options) {
      const flags = o.names.map((name) => (name.startsWith('--') ? `-l ${name.slice(2)}` : `-s ${name.slice(1)}`)).join(' ');
      lines.push(`complete -c ${binary} ${at} ${flags}${o.takesValue ? ' -r -F' : ''} -d ${quote(oneLine(o.description))}`);
    }
    // Arguments of a command (a project directory, a file) are paths.
    if (n.subcommands.length === 0) lines.push(`complete -c ${binary} ${at} -F`);
  }
  return `${lines.join('\n')}\n`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

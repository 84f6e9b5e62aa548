/**
 * `answer-once check <url>`: the arguments read into {@link CheckOptions} (a bad one is a
 * usage error naming it, exit 2), the run, its report (a table, or JSON with `--json`),
 * and the exit status (1 when a case failed).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { DEFAULT_STATUS_PATH } from '../core/status-path.js';
import { type CheckOptions, type HeaderList, normalizeCheckOptions } from './options.js';
import { formatJson, formatTable } from './report.js';
import { runCheck } from './runner.js';

/** Exit statuses. */
export const EXIT = { passed: 0, failed: 1, usage: 2 } as const;

export const USAGE = `Usage: answer-once check <url> [options]

Checks the server whose protected route is <url> against PROTOCOL.md, over HTTP: each
intent is a POST of the body to <url>. Prints one row per case: PASS, FAIL, or SKIP when
the server does not offer what the case needs (e.g. it does not stream).

Options:
  -H, --header <name: value>        a header sent with every request (credentials); repeatable
      --other-header <name: value>  a header of a second identity, for the scope case; repeatable
      --status-path <path>          the status route (default ${DEFAULT_STATUS_PATH})
      --body <text | @file>         the body of every intent (default: one useChat message)
      --other-body <text | @file>   another body, for the reused-ID case (default: the body and a space)
      --content-type <type>         the body's Content-Type (default application/json)
      --timeout <ms>                the longest one case may take, its waits included (default 20000)
      --wait <seconds>              the Prefer: wait=N sent when waiting for an answer (default 5)
      --json                        print the report as JSON
  -h, --help                        print this help

A run takes at most (cases × --timeout). Exit status: 0 when no case failed, 1 when one
did, 2 for bad usage.
`;

/** What the CLI writes to. */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

/** A bad argument: the message names it. */
class UsageError extends Error {
  override name = 'UsageError' as const;
}

/** The CLI's names of the options, for messages. */
const ARGUMENT_OF: Record<keyof CheckOptions, string> = {
  url: '<url>',
  headers: '--header',
  otherHeaders: '--other-header',
  statusPath: '--status-path',
  body: '--body',
  otherBody: '--other-body',
  contentType: '--content-type',
  timeoutMs: '--timeout',
  waitSeconds: '--wait',
};

const OPTIONS = {
  header: { type: 'string', short: 'H', multiple: true },
  'other-header': { type: 'string', multiple: true },
  'status-path': { type: 'string' },
  body: { type: 'string' },
  'other-body': { type: 'string' },
  'content-type': { type: 'string' },
  timeout: { type: 'string' },
  wait: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Runs `answer-once <argv…>`; resolves with the exit status. */
export async function main(argv: readonly string[], output: CliOutput): Promise<number> {
  try {
    const parsed = await parseArguments(argv);
    if (parsed === 'help') {
      output.out(USAGE);
      return EXIT.passed;
    }
    try {
      normalizeCheckOptions(parsed.options); // every option checked before anything is sent
    } catch (error) {
      throw new UsageError(renamed((error as TypeError).message));
    }
    const report = await runCheck(parsed.options);
    output.out(parsed.json ? formatJson(report) : formatTable(report));
    return report.failed > 0 ? EXIT.failed : EXIT.passed;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.err(`${error.message}\nSee \`answer-once check --help\`.\n`);
    return EXIT.usage;
  }
}

/** The options `argv` asks for, or `'help'`. */
async function parseArguments(argv: readonly string[]): Promise<'help' | { options: CheckOptions; json: boolean }> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; args: string[] }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`answer-once: ${(error as Error).message}`);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals[0] === 'help') return 'help';
  const [command, url, ...extra] = positionals;
  if (command !== 'check')
    throw new UsageError(`answer-once: unknown command ${JSON.stringify(command ?? '')}; the command is \`check\`.`);
  if (url === undefined) throw new UsageError('answer-once check: <url> is missing: the URL of the protected route.');
  if (extra.length > 0) throw new UsageError(`answer-once check: one <url> only; got also ${JSON.stringify(extra[0])}.`);
  const options: CheckOptions = {
    url,
    headers: headerArguments(values.header, '--header'),
    otherHeaders: values['other-header'] && headerArguments(values['other-header'], '--other-header'),
    statusPath: values['status-path'],
    body: await textArgument(values.body, '--body'),
    otherBody: await textArgument(values['other-body'], '--other-body'),
    contentType: values['content-type'],
    timeoutMs: numberArgument(values.timeout, '--timeout'),
    waitSeconds: numberArgument(values.wait, '--wait'),
  };
  return { options, json: values.json ?? false };
}

/** `Name: value` arguments as header pairs. */
function headerArguments(values: string[] | undefined, argument: string): HeaderList {
  return (values ?? []).map((value) => {
    const colon = value.indexOf(':');
    const name = value.slice(0, colon).trim();
    if (colon < 1 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new UsageError(`answer-once check: \`${argument}\` must be "Name: value"; got ${JSON.stringify(value)}.`);
    }
    return [name, value.slice(colon + 1).trim()] as const;
  });
}

/** A text argument, or the file it names with `@path`. */
async function textArgument(value: string | undefined, argument: string): Promise<string | undefined> {
  if (!value?.startsWith('@')) return value;
  try {
    return await readFile(value.slice(1), 'utf8');
  } catch (error) {
    throw new UsageError(
      `answer-once check: \`${argument}\` names a file that cannot be read: ${(error as Error).message}.`,
    );
  }
}

/** A whole-number argument (its bounds are the option check's). */
function numberArgument(value: string | undefined, argument: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value))
    throw new UsageError(`answer-once check: \`${argument}\` must be a whole number; got ${JSON.stringify(value)}.`);
  return Number(value);
}

/** An option check's message, with the CLI's argument in place of the option's name. */
function renamed(message: string): string {
  return message.replace(/`(\w+)`/g, (whole, option: string) =>
    option in ARGUMENT_OF ? `\`${ARGUMENT_OF[option as keyof CheckOptions]}\`` : whole,
  );
}

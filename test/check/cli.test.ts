import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, main, USAGE } from '../../src/check/cli.js';
import type { CheckReport } from '../../src/check/runner.js';
import { type CheckedServer, startNaiveServer, startReferenceServer } from '../support/check-servers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = 'src/check/bin.ts';

/** `answer-once <args…>` as a process (the bin's source under tsx): its exit status and output. */
function cli(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `main(argv)` in this process: its exit status and what it wrote. */
async function run(argv: readonly string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { out: (text) => (stdout += text), err: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

describe('the answer-once command', { timeout: 60_000 }, () => {
  let reference: CheckedServer;
  let naive: CheckedServer;
  beforeAll(async () => {
    [reference, naive] = await Promise.all([startReferenceServer(), startNaiveServer()]);
  });
  afterAll(async () => {
    await Promise.all([reference?.close(), naive?.close()]);
  });

  it('prints the report as JSON with --json and exits 0 when every case passed against the reference server', async () => {
    const { code, stdout } = await cli([
      'check',
      reference.url,
      '--header',
      'Authorization: Bearer alice',
      '--other-header',
      'Authorization: Bearer bob',
      '--json',
    ]);

    const report = JSON.parse(stdout) as CheckReport;
    expect(report).toMatchObject({ url: reference.url, failed: 0, skipped: 0, passed: report.results.length });
    expect(report.results.map((result) => [result.section, result.id, result.outcome])).toContainEqual([
      '§ 6.1',
      'duplicate-in-progress',
      'pass',
    ]);
    expect(code).toBe(EXIT.passed);
  });

  it('prints a table naming the failed cases and exits 1 against a server that dedupes naively', async () => {
    const { code, stdout } = await cli(['check', naive.url, '-H', 'Authorization: Bearer alice']);

    const rows = stdout.split('\n').filter((line) => /^(PASS|FAIL|SKIP) /.test(line));
    expect(
      rows.map((row) =>
        row
          .split(/\s{2,}/)
          .slice(0, 3)
          .join(' '),
      ),
    ).toEqual([
      'PASS § 2.4 missing-id',
      'PASS § 2.4 malformed-id',
      'PASS § 2.2 idempotency-key',
      'PASS § 2.2 both-headers',
      'SKIP § 3.3 other-scope',
      'PASS § 7.3 replay',
      'PASS § 6 other-body',
      'PASS § 8 status-route',
      'FAIL § 6.1 duplicate-in-progress',
      'FAIL § 6.2 prefer-wait',
      'SKIP § 14.5 resume',
      'SKIP § 14.5 past-the-end',
      'SKIP § 14.8 stop',
    ]);
    expect(stdout).toContain('→ both sends ran the work');
    expect(stdout).toMatch(/\n13 cases in \d+\.\d s: 7 passed, 2 failed, 4 skipped\n/);
    expect(code).toBe(EXIT.failed);
  });

  it('exits 2 naming the argument when one is bad, before sending anything', async () => {
    const spawned = await cli(['check', 'localhost:3000/api/chat']);
    expect(spawned).toMatchObject({ code: EXIT.usage, stdout: '' });
    expect(spawned.stderr).toContain(
      'answer-once check: `<url>` must be an absolute http: or https: URL; got "localhost:3000/api/chat".',
    );

    const cases: [string[], string][] = [
      [[], 'answer-once: unknown command ""; the command is `check`.'],
      [['chek', 'http://127.0.0.1/'], 'answer-once: unknown command "chek"'],
      [['check'], '<url> is missing'],
      [['check', 'http://a.test/', 'http://b.test/'], 'one <url> only; got also "http://b.test/"'],
      [
        ['check', 'http://a.test/', '--header', 'Authorization Bearer x'],
        '`--header` must be "Name: value"; got "Authorization Bearer x".',
      ],
      [['check', 'http://a.test/', '--other-header', ': x'], '`--other-header` must be "Name: value"'],
      [['check', 'http://a.test/', '--timeout', '5s'], '`--timeout` must be a whole number; got "5s".'],
      [['check', 'http://a.test/', '--timeout', '100'], '`--timeout` must be an integer from 2000 to 600000; got 100.'],
      [['check', 'http://a.test/', '--wait', '30'], '`--wait` must be an integer from 1 to 19; got 30.'],
      [['check', 'http://a.test/', '--status-path', 'api/status'], '`--status-path` must be a path starting with `/`'],
      [['check', 'http://a.test/', '--content-type', 'json'], '`--content-type` must be a media type'],
      [['check', 'http://a.test/', '--body', '@/nonexistent/body.json'], '`--body` names a file that cannot be read'],
      [
        ['check', 'http://a.test/', '--other-body', '{"a":1}', '--body', '{"a":1}'],
        '`--other-body` must be a string other than `--body`',
      ],
      [['check', 'http://a.test/', '--retries', '3'], "Unknown option '--retries'"],
      [['check', 'http://a.test/', '--timeout'], "Option '--timeout <value>' argument missing"],
    ];
    for (const [argv, message] of cases) {
      const { code, stdout, stderr } = await run(argv);
      expect({ argv, code, stdout }).toEqual({ argv, code: EXIT.usage, stdout: '' });
      expect(stderr).toContain(message);
      expect(stderr).toContain('See `answer-once check --help`.');
    }
  });

  it('prints its usage with --help, and exits 0', async () => {
    for (const argv of [['--help'], ['check', '--help'], ['-h'], ['help']]) {
      expect(await run(argv)).toEqual({ code: EXIT.passed, stdout: USAGE, stderr: '' });
    }
    expect(USAGE).toContain('--other-header <name: value>');
  });

  it('reads --body from a file given as @path', async () => {
    const file = join(tmpdir(), `answer-once-check-${process.pid}.json`);
    await writeFile(file, '{"question":"from a file"}');
    // The file's text is the body: the same text as --other-body is refused as no other body.
    const { code, stderr } = await run([
      'check',
      reference.url,
      '--body',
      `@${file}`,
      '--other-body',
      '{"question":"from a file"}',
    ]);

    expect(stderr).toContain('`--other-body` must be a string other than `--body`');
    expect(code).toBe(EXIT.usage);
  });
});

/** A run's report as people read it (a table) and as programs do (JSON). */
import type { CheckReport } from './runner.js';

const LABEL = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' } as const;

/** `text` padded to `width`. */
const pad = (text: string, width: number) => text.padEnd(width);

/** The report as a table: one row per case (result, section, case, time, promise), its detail below it. */
export function formatTable(report: CheckReport): string {
  const rows = report.results.map((result) => ({
    cells: [LABEL[result.outcome], result.section, result.id, `${result.durationMs} ms`, result.title],
    detail: result.detail,
  }));
  const header = ['result', 'section', 'case', 'time', 'promise'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row.cells[column]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => pad(cell, widths[column]!))
      .join('  ')
      .trimEnd();
  const indent = ' '.repeat(widths[0]! + 2);
  const seconds = (report.durationMs / 1000).toFixed(1);
  return [
    `answer-once check ${report.url}`,
    '',
    line(header),
    ...rows.flatMap((row) => [line(row.cells), `${indent}→ ${row.detail}`]),
    '',
    `${report.results.length} cases in ${seconds} s: ${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped`,
    '',
  ].join('\n');
}

/** The report as JSON (one object: the URL, the counts, every case's result). */
export function formatJson(report: CheckReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

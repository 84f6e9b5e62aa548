import { acquireSql } from './sql/acquire.js';
import { appendSql } from './sql/append.js';
import { finishStepSql } from './sql/finish-step.js';
import { getSql } from './sql/get.js';
import { markAvoidedSql } from './sql/mark-avoided.js';
import { readLogSql } from './sql/read-log.js';
import { renewSql } from './sql/renew.js';
import { createTablesSql } from './sql/schema.js';
import { settleSql } from './sql/settle.js';
import { startStepSql } from './sql/start-step.js';
import { stopSql } from './sql/stop.js';
import { sweepSql } from './sql/sweep.js';
import { type Tables, tablesOf } from './sql/tables.js';
import { watchStopSql } from './sql/watch-stop.js';

/** Every statement of one store, built once for its table. */
export interface Statements {
  readonly tables: Tables;
  readonly createTables: string;
  readonly acquire: string;
  readonly renew: string;
  readonly settle: string;
  readonly get: string;
  readonly markAvoided: string;
  readonly append: string;
  readonly readLog: string;
  readonly stop: string;
  readonly watchStop: string;
  readonly sweep: string;
  readonly startStep: string;
  readonly finishStep: string;
}

export function statementsOf(table: string): Statements {
  const tables = tablesOf(table);
  return Object.freeze({
    tables,
    createTables: createTablesSql(tables),
    acquire: acquireSql(tables),
    renew: renewSql(tables),
    settle: settleSql(tables),
    get: getSql(tables),
    markAvoided: markAvoidedSql(tables),
    append: appendSql(tables),
    readLog: readLogSql(tables),
    stop: stopSql(tables),
    watchStop: watchStopSql(tables),
    sweep: sweepSql(tables),
    startStep: startStepSql(tables),
    finishStep: finishStepSql(tables),
  });
}

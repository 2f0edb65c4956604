// The portability module's schemas: what an export and an import take and answer (shared with the web
// app and the CLI), and how an import file is read into rows.
export * from './export';
export * from './import';
export * from './import-file';
export * from './vendors';
export * from './import-run';

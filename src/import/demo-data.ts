import type { Store } from '../store/db.js';
import { buildDemoData } from '../store/demo-data.js';
import { importData, type ImportSummary } from './import.js';

/** The demo data set (src/store/demo-data.ts) loaded through the import, as any data file is. */

/** Imports the demo data set (dates relative to `now`) into the store. */
export async function loadDemoData(store: Store, now: Date = new Date()): Promise<ImportSummary> {
  return importData(store, buildDemoData(now), { now });
}

/** Imports the demo data set when the store holds no company; undefined when it already did. */
export function loadDemoDataIntoEmptyStore(store: Store, now: Date = new Date()): Promise<ImportSummary | undefined> {
  return importData(store, buildDemoData(now), { now, onlyIntoEmptyStore: true });
}

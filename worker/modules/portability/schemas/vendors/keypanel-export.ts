// A table of KeyPanel's CSV export (GET /api/admin/export?format=csv&table=..., the owner's Data
// Export): its header is the table's columns, so it is known by them, and each row reads as the line
// of the JSON lines export it would be ({"table", "row"}), its cells typed back (numbers, true/false,
// JSON lists) and a cell the export neutralised for spreadsheets (a leading ') given back as written.
type Table = 'users' | 'products' | 'keys' | 'devices' | 'ledger';

const TABLES: Record<Table, { columns: string[]; numbers: string[]; flags: string[]; json: string[] }> = {
  users: {
    columns: ['id', 'username', 'email', 'role', 'createdAt'],
    numbers: ['balanceCents', 'credits', 'credentialEpoch'],
    flags: ['isActive', 'twoFactorEnabled'],
    json: ['mailOptOuts'],
  },
  products: {
    columns: ['id', 'name', 'keyTag', 'minDays', 'maxDays', 'baseCreditCost'],
    numbers: [
      'baseCreditCost',
      'creditsPerDay',
      'minDays',
      'maxDays',
      'maxActivations',
      'totalGenerated',
      'totalSold',
      'revenue',
      'totalActivations',
      'offlineTokenHours',
      'earlierTokensLiveUntil',
      'leaseMinutes',
      'borrowMaxHours',
      'swapLimit',
      'swapWindowDays',
      'trialDays',
      'usageAllowance',
      'usageRefillAmount',
      'usageRefillDays',
      'trialUsageAllowance',
    ],
    flags: ['isActive'],
    json: ['features', 'entitlements'],
  },
  keys: {
    columns: ['id', 'key', 'status', 'productKeyTag', 'duration', 'maxActivations'],
    numbers: ['duration', 'maxActivations', 'purchasePrice', 'transferCount', 'usageRemaining', 'usagePeriodStart'],
    flags: ['isTrial'],
    json: ['entitlements'],
  },
  devices: { columns: ['id', 'keyId', 'deviceFingerprint', 'activatedAt'], numbers: [], flags: [], json: ['deviceInfo'] },
  ledger: {
    columns: ['id', 'userId', 'kind', 'creditsDelta', 'usdCentsDelta'],
    numbers: ['creditsDelta', 'usdCentsDelta'],
    flags: [],
    json: [],
  },
};

/** The export's table a CSV header is, if it has all of that table's telling columns. */
export function exportTableOf(header: string[]): Table | null {
  const names = new Set(header);
  return (Object.keys(TABLES) as Table[]).find((table) => TABLES[table].columns.every((c) => names.has(c))) ?? null;
}

/** A row of the table's CSV as its JSON lines export writes it. */
export function exportCsvRecord(table: Table, cells: Record<string, unknown>): Record<string, unknown> {
  const { numbers, flags, json } = TABLES[table];
  const row: Record<string, unknown> = {};
  for (const [name, cell] of Object.entries(cells)) {
    const text = typeof cell === 'string' ? cell : '';
    if (text === '') row[name] = null;
    else if (numbers.includes(name) && /^-?\d+$/.test(text)) row[name] = Number(text);
    else if (flags.includes(name) && (text === 'true' || text === 'false')) row[name] = text === 'true';
    else if (json.includes(name)) {
      try {
        row[name] = JSON.parse(text);
      } catch {
        row[name] = text;
      }
    } else row[name] = /^'[=+\-@\t\r]/.test(text) ? text.slice(1) : text;
  }
  return { table, row };
}

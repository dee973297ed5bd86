import { rebateCodeSignKey } from '../../src/store/sign-key.js';
import { DAY, iso, type GenContext } from './bulk.js';

// Rebate codes with their lists, printouts, message templates and MCP usage.

const CODE_COLUMNS = [
  'id', 'company_id', 'sign', 'sign_key', 'type_id', 'value', 'status_id', 'name', 'valid_from', 'valid_to', 'from_time', 'to_time',
  'max_number_of_uses', 'max_number_of_uses_per_customer', 'number_of_uses_used', 'remaining_amount', 'remaining_usage',
  'personal_note', 'payment_received', 'currency_sign', 'price_sign', 'created_by', 'created', 'updated',
];
const TX_COLUMNS = ['company_id', 'rebate_code_id', 'amount', 'usage', 'note', 'customer_id', 'service_id', 'created_date', 'updated_date'];

export async function generateRebateCodes(ctx: GenContext): Promise<void> {
  const { bulk, rng, now, hot } = ctx;
  const total = ctx.count(200_000);
  let hotIndex = 0;
  for (let id = 1; id <= total; id++) {
    const company = ctx.owner();
    const services = ctx.services.get(company)!;
    const customers = ctx.customers.get(company)!;
    // A quarter of the hot company's codes are valid gift cards for lookups, a quarter value cards for transactions.
    const role = company === hot ? (['lookup', 'transactions', 'any', 'any'] as const)[hotIndex++ % 4] : 'any';
    const sign = `BC${id.toString(36).toUpperCase().padStart(6, '0')}${rng.int(10, 99)}`;
    const type = role === 'lookup' ? 5 : role === 'transactions' ? 4 : rng.int(1, 5);
    const value = type === 1 ? rng.int(5, 50) : type === 3 ? rng.int(5, 20) : rng.int(1, 40) * 50;
    const plain = role !== 'any';
    const validFrom = plain ? now - 30 * DAY : now - rng.int(0, 700) * DAY;
    const validTo = plain ? now + 700 * DAY : validFrom + rng.int(30, 730) * DAY;
    const used = type === 3 ? rng.int(0, value - 1) : 0;
    const remainingAmount = type === 4 || type === 5 ? (plain ? value : rng.int(0, value)) : null;
    const timed = !plain && rng.chance(0.1);
    await bulk.insert('rebate_codes', CODE_COLUMNS, [
      id, company, sign, rebateCodeSignKey(sign), type, value, plain ? 1 : rng.pick([1, 1, 1, 1, 1, 1, 1, 1, 2, 3]), `Code ${id}`,
      iso(validFrom), iso(validTo), timed ? '09:00:00' : null, timed ? '17:00:00' : null, plain ? 0 : rng.pick([0, 0, 0, 100]),
      0, used, remainingAmount, type === 3 ? value - used : null, rng.chance(0.2) ? 'Happy birthday!' : null,
      type >= 3 ? 1 : 0, type >= 3 ? 'SEK' : null, 'kr', 'bench', iso(validFrom), iso(validFrom),
    ]);
    if (!plain && rng.chance(0.2)) {
      for (const day of new Set([rng.int(1, 7), rng.int(1, 7), rng.int(1, 7)])) await bulk.insert('rebate_code_days', ['rebate_code_id', 'day_of_week'], [id, day]);
    }
    const codeServices = role === 'lookup' ? [services[0]] : plain || !rng.chance(0.3) ? [] : [...new Set([rng.pick(services), rng.pick(services)])];
    for (const service of codeServices) await bulk.insert('rebate_code_services', ['rebate_code_id', 'service_id'], [id, service]);
    const customer = role === 'lookup' || (!plain && rng.chance(0.1)) ? rng.pick(customers) : undefined;
    if (customer) await bulk.insert('rebate_code_customers', ['rebate_code_id', 'customer_id'], [id, customer.id]);
    if (role === 'lookup') ctx.meta.hot.lookupCodes.push({ sign, email: customer!.email, serviceId: services[0] });
    if (role === 'transactions') ctx.meta.hot.valueCardIds.push(id);
    // Some history: a few transactions and, for cards, the payment.
    if (type !== 4 || !plain) {
      for (let t = rng.chance(0.25) ? rng.int(1, 3) : 0; t > 0; t--) {
        const at = iso(validFrom + rng.int(1, 20) * DAY);
        await bulk.insert('rebate_code_transactions', TX_COLUMNS,
          [company, id, type >= 4 ? -rng.int(1, 5) * 10 : 0, type === 3 ? -1 : 0, 'Used at checkout', customer?.id ?? null, services[0], at, at]);
      }
    }
    if (type >= 4) {
      await bulk.insert('payment_logs', ['company_id', 'rebate_code_id', 'amount', 'amount_credited', 'currency_id', 'comments', 'created', 'updated'],
        [company, id, value, 0, 'SEK', 'Paid by card', iso(validFrom), iso(validFrom)]);
    }
  }
  ctx.meta.counts.rebateCodes = total;
}

export async function generatePrintouts(ctx: GenContext): Promise<void> {
  const { bulk, rng, hot } = ctx;
  const kinds = ['Day sheet', 'Week overview', 'Customer list', 'Receipt', 'Resource schedule', 'Check-in list', 'Invoice basis', 'Staff roster'];
  const total = ctx.count(50_000);
  for (let id = 1; id <= total; id++) {
    const company = ctx.owner();
    if (company === hot) ctx.meta.hot.printouts++;
    const kind = rng.pick(kinds);
    await bulk.insert('printouts',
      ['id', 'company_id', 'name', 'header_left_cell', 'header_middle_cell', 'header_right_cell', 'body_cell', 'footer_left_cell', 'footer_middle_cell', 'footer_right_cell'],
      [id, company, `${kind} ${rng.int(1, 9999)}`, '{CompanyName}', kind, '{Date}', rng.chance(0.5) ? '{BookingTable}' : '{Time} {Customer} {Service} {Resource}', '{PrintedBy}', null, 'Page {Page} of {Pages}']);
  }
  ctx.meta.counts.printouts = total;
}

export async function generateTemplates(ctx: GenContext): Promise<void> {
  const { bulk, now } = ctx;
  let id = 0;
  for (const company of ctx.companies) {
    for (const type of [1, 2, 3]) {
      await bulk.insert('message_templates', ['id', 'company_id', 'type_id', 'name', 'title', 'body', 'sender', 'language', 'is_default', 'created'],
        [++id, company, type, `Template ${type}`, 'Thank you for your booking', 'Hi {Firstname}, see you {From}.', type === 2 ? null : 'booking@example.com', 'en', 1, iso(now - 200 * DAY)]);
      await bulk.insert('message_template_services', ['message_template_id', 'service_id'], [id, ctx.services.get(company)![0]]);
    }
  }
}

/** Usage records in time order over the last year, as the MCP server would have written them. */
export async function generateMcpUsage(ctx: GenContext): Promise<void> {
  const { bulk, rng, now, hot } = ctx;
  const total = ctx.count(1_000_000);
  const start = now - 365 * DAY;
  for (let i = 0; i < total; i++) {
    const company = ctx.owner();
    if (company === hot) ctx.meta.hot.mcpRows++;
    await bulk.insert('mcp_usage', ['company_id', 'tokens_used', 'at'], [company, rng.int(100, 20_000), iso(start + Math.floor((i / total) * 365 * DAY) + rng.int(0, 60_000))]);
  }
  ctx.meta.counts.mcpUsage = total;
}

import { DAY, iso, type GenContext } from './bulk.js';

// Reference data, companies and the company data bookings hang on. Sizes per company are
// fixed (services, tags, resources); customers and bookings are totals spread by owner().

const COUNTRIES = ['SE', 'NO', 'DK', 'FI', 'IS', 'DE', 'NL', 'BE', 'FR', 'ES', 'IT', 'PL', 'GB', 'IE', 'AT', 'CH', 'EE', 'LV', 'LT', 'US'];
const FIRST = ['Anna', 'Erik', 'Maria', 'Lars', 'Karin', 'Johan', 'Sara', 'Anders', 'Eva', 'Ola', 'Ingrid', 'Nils'];
const LAST = ['Svensson', 'Johansson', 'Lindqvist', 'Nordmann', 'Berg', 'Dahl', 'Holm', 'Lund', 'Ek', 'Strand'];
/** BookingStatusEnum ids weighted towards Booked (1); 2 Unbooked and 4 Canceled do not block deletion. */
const STATUSES = [1, 1, 1, 1, 1, 1, 3, 5, 6, 2, 2, 4, 4, 7, 8, 9, 10];

export async function generateReference({ bulk }: GenContext): Promise<void> {
  for (let id = 1; id <= 20; id++) {
    await bulk.insert('categories', ['id', 'name', 'normalized_name', 'active'], [id, `Category ${id}`, `category-${id}`, id % 7 === 0 ? 0 : 1]);
  }
  for (let id = 1; id <= 12; id++) {
    await bulk.insert('billing_methods', ['id', 'name', 'description'], [id, `Method ${id}`, `Billing method number ${id}`]);
    // Every method in a few countries; SE in most of them.
    const countries = new Set([COUNTRIES[id % COUNTRIES.length], COUNTRIES[(id * 7) % COUNTRIES.length]]);
    if (id % 4 !== 0) countries.add('SE');
    for (const country of countries) await bulk.insert('billing_method_countries', ['billing_method_id', 'country_id'], [id, country]);
  }
  const types: Array<[string, number, number]> = [
    ['Booking confirmation (e-mail)', 4000, 1], ['Booking confirmation (SMS)', 160, 2], ['Booking reminder (e-mail)', 4000, 1],
    ['Booking reminder (SMS)', 160, 2], ['Cancellation (e-mail)', 4000, 1],
  ];
  for (const [i, [name, max, method]] of types.entries()) {
    await bulk.insert('message_types', ['id', 'name', 'description', 'max_characters', 'default_text', 'send_method_id'], [i + 1, name, name, max, '', method]);
  }
}

export async function generateCompanies(ctx: GenContext): Promise<void> {
  const { bulk, rng, now } = ctx;
  let serviceId = 0;
  let tagId = 0;
  let resourceId = 0;
  for (const [n, company] of ctx.companies.entries()) {
    await bulk.insert('companies', ['id', 'name', 'site_path', 'payment_provider_id', 'mcp_token_limit', 'created'],
      [company, `Company ${n}`, `company-${n}`, rng.int(1, 3), rng.chance(0.1) ? rng.int(10, 100) * 10_000 : null, iso(now - rng.int(30, 2000) * DAY)]);
    for (const category of new Set([rng.int(1, 20), rng.int(1, 20)])) await bulk.insert('company_categories', ['company_id', 'category_id'], [company, category]);
    const services: number[] = [];
    for (let i = 0; i < 5; i++) {
      services.push(++serviceId);
      await bulk.insert('services', ['id', 'company_id', 'name', 'description', 'image_url', 'active'],
        [serviceId, company, `Service ${i + 1}`, 'A bookable service', `https://images.example.com/${n}/${i}.jpg`, i === 4 ? 0 : 1]);
    }
    ctx.services.set(company, services);
    for (let i = 0; i < 5; i++) {
      await bulk.insert('tags', ['id', 'company_id', 'name', 'scope', 'color', 'sort_order', 'active', 'created_date'],
        [++tagId, company, `Tag ${i + 1}`, 1, '#2e86de', i, 1, iso(now - 100 * DAY)]);
    }
    const resources: number[] = [];
    for (let i = 0; i < 10; i++) {
      resources.push(++resourceId);
      await bulk.insert('resources', ['id', 'company_id', 'name', 'description', 'active', 'color', 'email', 'email_notification', 'sms_notification', 'resource_category', 'created', 'updated'],
        [resourceId, company, `Resource ${i + 1}`, 'A resource', 1, '#e67e22', `resource${i}@c${n}.example`, 1, 0, rng.int(1, 4), iso(now - 400 * DAY), iso(now - 10 * DAY)]);
    }
    ctx.resources.set(company, resources);
    ctx.customers.set(company, []);
    for (let i = 0; i < 2; i++) {
      await bulk.insert('time_exceptions', ['id', 'company_id', 'is_recurring', 'is_block', 'reason_text', 'from', 'to'],
        [ctx.companies.length * i + n + 1, company, 0, 1, 'Closed', iso(now + (i + 1) * 7 * DAY), iso(now + (i + 1) * 7 * DAY + 8 * 3600_000)]);
      await bulk.insert('time_exception_resources', ['time_exception_id', 'resource_id'], [ctx.companies.length * i + n + 1, resources[i]]);
    }
  }
  ctx.meta.hot.services = ctx.services.get(ctx.hot)!;
}

export async function generateCustomers(ctx: GenContext): Promise<void> {
  const { bulk, rng, now } = ctx;
  // One customer per company first, so every company has one; the rest by owner().
  const total = Math.max(ctx.companies.length, ctx.count(50_000));
  for (let i = 0; i < total; i++) {
    const company = i < ctx.companies.length ? ctx.companies[i] : ctx.owner();
    const [first, last] = [rng.pick(FIRST), rng.pick(LAST)];
    const customer = { id: rng.uuid(), email: `${first}.${last}.${i}@example.com`.toLowerCase() };
    await bulk.insert('customers', ['id', 'company_id', 'firstname', 'lastname', 'email', 'phone', 'invoice_country_code', 'subscribed_to_newsletter', 'created'],
      [customer.id, company, first, last, customer.email, `+4670${String(i).padStart(7, '0')}`, 'SE', rng.chance(0.3) ? 1 : 0, iso(now - rng.int(1, 700) * DAY)]);
    const firstTag = ctx.companyIndex.get(company)! * 5 + 1;
    for (const tag of new Set(Array.from({ length: rng.int(0, 2) }, () => firstTag + rng.int(0, 4)))) {
      await bulk.insert('customer_tags', ['customer_id', 'tag_id'], [customer.id, tag]);
    }
    ctx.customers.get(company)!.push(customer);
  }
  ctx.meta.counts.customers = total;
}

export async function generateBookings(ctx: GenContext): Promise<void> {
  const { bulk, rng, now, hot } = ctx;
  const columns = ['id', 'company_id', 'service_id', 'from', 'to', 'booked_spots', 'total_spots', 'status_id', 'customer_id'];
  const total = ctx.count(100_000);
  let id = 0;
  const add = async (company: string, resource: number, from: number, status: number) => {
    const customers = ctx.customers.get(company)!;
    await bulk.insert('bookings', columns, [++id, company, rng.pick(ctx.services.get(company)!.slice(0, 4)), iso(from), iso(from + rng.int(1, 4) * 30 * 60_000), 1, 1, status, rng.chance(0.8) ? rng.pick(customers).id : null]);
    await bulk.insert('booking_resources', ['booking_id', 'resource_id'], [id, resource]);
  };
  // Each of the hot company's resources gets one Booked booking: DeleteResource answers 409.
  for (const resource of ctx.resources.get(hot)!) await add(hot, resource, now + 2 * DAY, 1);
  ctx.meta.hot.blockedResources = ctx.resources.get(hot)!;
  // The rest in time order, a year back to a month ahead, as a live system would have written them.
  for (let i = 0; i < total; i++) {
    const company = ctx.owner();
    await add(company, rng.pick(ctx.resources.get(company)!), now - 365 * DAY + Math.floor((i / total) * 395 * DAY), rng.pick(STATUSES));
  }
  ctx.meta.counts.bookings = id;
}

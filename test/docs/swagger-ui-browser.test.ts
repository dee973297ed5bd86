import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import t from 'tap';
import { contract } from '../../src/contract/contract.js';
import { COMPANY_A } from '../fixtures.js';
import { queryData } from '../fixtures/queries.js';
import { READ, buildTestApp, token } from '../helper.js';
import { CHROMIUM, needs } from '../needs.js';

// Swagger UI at /docs works wherever the server runs (docs/contract.md). A real
// browser opens the page of a server on a random port of 127.0.0.1, by that address and by a
// host name, authorizes with a bearer token and runs an operation with "Try it out" and
// "Execute"; the page also lists the contract's webhooks, each event under its name.

/** A name (RFC 2606 reserves .test) that the browser resolves to 127.0.0.1, as a LAN host name would resolve elsewhere. */
const HOST_NAME = 'booking.test';
/** Swagger UI's element of BillingMethodQuery (tag Billing): an operation that needs credentials. */
const OPERATION = '#operations-Billing-BillingMethodQuery';

let launched: Promise<Browser> | undefined;

/** One headless Chromium for the file, at `executablePath` (test/needs.ts finds it). */
function browser(executablePath: string): Promise<Browser> {
  launched ??= puppeteer.launch({
    executablePath,
    headless: true,
    args: [
      // Tests run as root in CI, where Chromium's sandbox cannot start.
      '--no-sandbox',
      '--disable-dev-shm-usage',
      // Every name resolves to nothing except HOST_NAME, to 127.0.0.1: the browser reaches
      // nothing off this machine.
      `--host-resolver-rules=MAP ${HOST_NAME} 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1`,
    ],
  });
  return launched;
}

t.teardown(async () => {
  if (launched) await (await launched).close();
});

interface Shown {
  status: string;
  body: string;
  requestUrl: string;
}

/** Clicks "Execute" on the operation and reads the answer Swagger UI shows. */
async function execute(page: Page): Promise<Shown> {
  const clear = await page.$(`${OPERATION} .btn-clear`);
  if (clear) await clear.click();
  await page.click(`${OPERATION} .execute`);
  await page.waitForSelector(`${OPERATION} .live-responses-table tbody .response-col_status`);
  const response = '.live-responses-table tbody .response';
  // Plain text of each element (empty when absent), read in the page; the callbacks are
  // anonymous because tsx's added name helper does not exist in the browser.
  const [requestUrl, status, body, description] = await page.$eval(
    OPERATION,
    (operation, selectors) => selectors.map((selector) => operation.querySelector(selector)?.textContent?.trim() ?? ''),
    ['.request-url pre', `${response} .response-col_status`, `${response} .response-col_description .highlight-code pre`, `${response} .response-col_description`],
  );
  // Without an answer the page says why instead ("Failed to fetch" …).
  return { requestUrl, status, body: body || description };
}

/** Enters a bearer token in Swagger UI's "Authorize" dialog. */
async function authorize(page: Page, bearerToken: string): Promise<void> {
  await page.click('.auth-wrapper .authorize');
  await page.waitForSelector('.modal-ux input');
  await page.type('.modal-ux input', bearerToken);
  await page.click('.modal-ux .auth-btn-wrapper .authorize');
  await page.click('.modal-ux .btn-done');
}

for (const host of ['127.0.0.1', HOST_NAME]) {
  t.test(`Swagger UI opened as http://${host}:<random port>/docs authorizes and runs an operation against that origin`, async (t) => {
    const chromium = needs(t, CHROMIUM);
    if (!chromium) return;
    const api = await buildTestApp(t, { data: queryData });
    const address = await api.app.listen({ port: 0, host: '127.0.0.1' });
    const origin = `http://${host}:${new URL(address).port}`;
    const page = await (await browser(chromium)).newPage();
    t.teardown(() => page.close());
    const failed: string[] = [];
    page.on('requestfailed', (request) => failed.push(`${request.url()}: ${request.failure()?.errorText}`));

    page.setDefaultTimeout(15000);
    await page.goto(`${origin}/docs`, { waitUntil: 'networkidle0' });
    t.same(failed, [], 'the page loads everything it needs');
    if (!(await page.$(OPERATION))) return t.fail('Swagger UI shows the operation');

    // Swagger UI 5 shows an OpenAPI 3.1 document's `webhooks` in a block of their own,
    // headed "Webhooks", with the event type (the webhook's name) as each one's path.
    const webhooks = await page.$eval('.webhooks', (block) => ({
      heading: block.querySelector('h2')?.textContent?.trim() ?? '',
      names: [...block.querySelectorAll('.opblock-summary-path')].map((path) => path.textContent?.trim() ?? ''),
    })).catch(() => undefined);
    t.equal(webhooks?.heading, 'Webhooks', 'the page has a Webhooks section');
    t.same(webhooks?.names, Object.keys(contract().document.webhooks as object), 'it lists every event of the contract by its name');
    await page.click(`${OPERATION} .opblock-summary-control`);
    await page.waitForSelector(`${OPERATION} .try-out__btn`);
    await page.click(`${OPERATION} .try-out__btn`);

    const refused = await execute(page);
    t.equal(new URL(refused.requestUrl).origin, origin, 'the call goes to the origin that served the page');
    t.equal(refused.status, '401', 'without credentials the server refuses the call');
    t.match(JSON.parse(refused.body) as unknown, { ResponseStatus: { ErrorCode: 'Unauthorized' } });

    await authorize(page, await token(COMPANY_A, [READ]));
    const answered = await execute(page);
    t.equal(new URL(answered.requestUrl).origin, origin);
    t.equal(answered.status, '200', 'with the bearer token the call succeeds');
    // The same request through the contract-checking helper: the page shows what the contract allows.
    const { pathname, search } = new URL(answered.requestUrl);
    const expected = await api.call('GET', pathname + search, { as: [READ] });
    t.equal(expected.statusCode, 200);
    t.same(JSON.parse(answered.body), expected.json(), 'the page shows the JSON answer');
    t.ok(expected.json().Results.length > 0, 'an answer with billing methods in it');
    t.same(failed, [], 'no request of the page failed');
  });
}

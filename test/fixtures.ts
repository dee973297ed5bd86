/**
 * The ids the tests share, and a small data file (docs/importing.md) for the HTTP tests.
 * Tests on the demo data use its own ids (DEMO_COMPANY_A/B of src/store/demo-data.js).
 */

/** The two companies of the test data files (A's id sorts before B's). */
export const COMPANY_A = 'aaaaaaaa-0000-4000-8000-00000000000a';
export const COMPANY_B = 'bbbbbbbb-0000-4000-8000-00000000000b';
/** A well-formed company id that no data file holds. */
export const UNKNOWN_COMPANY = 'cccccccc-0000-4000-8000-00000000000c';
/** A well-formed guid that no data file uses: an unknown customer, or a company a test adds itself. */
export const UNUSED_GUID = 'dddddddd-0000-4000-8000-00000000000d';

export const baseData = {
  Companies: [
    { Id: COMPANY_A, Name: 'Salon A', SitePath: 'salon-a', CategoryIds: [1, 2] },
    { Id: COMPANY_B, Name: 'Gym B', SitePath: 'gym-b', CategoryIds: [3] },
  ],
  Categories: [
    { Id: 1, Name: 'Hair salon', NormalizedName: 'hair-salon', Active: true },
    { Id: 2, Name: 'Beauty, nails & spa', NormalizedName: 'beauty-nails-spa', Active: true },
    { Id: 3, Name: 'Gym', NormalizedName: 'gym', Active: true },
    { Id: 4, Name: 'Padel "indoor"', NormalizedName: 'padel-indoor', Active: false },
  ],
  Tags: [
    { CompanyId: COMPANY_A, Id: 10, Name: 'VIP', Scope: 1, Color: '#ff0000', SortOrder: 1, Active: true, CreatedDate: '2026-01-02T03:04:05.000Z' },
    { CompanyId: COMPANY_A, Id: 11, Name: 'Newsletter', Scope: 1, Color: '#00ff00', SortOrder: 2, Active: true, CreatedDate: '2026-01-02T03:04:05.000Z' },
    { CompanyId: COMPANY_B, Id: 20, Name: 'Member', Scope: 1, Color: '#0000ff', SortOrder: 1, Active: true, CreatedDate: '2026-01-02T03:04:05.000Z' },
  ],
};

/** A small data file (product-decisions §5) shared by the HTTP tests. */
export const COMPANY_A = 'aaaaaaaa-0000-4000-8000-00000000000a';
export const COMPANY_B = 'bbbbbbbb-0000-4000-8000-00000000000b';
export const UNKNOWN_COMPANY = 'cccccccc-0000-4000-8000-00000000000c';

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

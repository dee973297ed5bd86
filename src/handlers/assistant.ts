import { budget, tokenLimit, usageWindow } from '../domain/mcp-usage.js';
import { notFound } from '../domain/refusals.js';
import { mcpUsageRepository } from '../store/repositories/mcp-usage.js';
import type { HandlersOf } from './types.js';

export const assistantHandlers: HandlersOf<'GetMcpUsage'> = {
  /**
   * The company's MCP usage over the rolling window ending now. Any authenticated
   * caller, for its own company (or any, as superadmin); a company the store does not
   * hold is 404 rather than a zero usage that would look real.
   */
  async GetMcpUsage({ companyId: company, store, config }) {
    const { from, to } = usageWindow(new Date(), config.MCP_WINDOW_DAYS);
    const found = await mcpUsageRepository(store).usage(company, from, to);
    if (!found) throw notFound('Company not found.');
    return {
      CompanyId: company,
      ...budget(found.used, tokenLimit(found.limit, config.MCP_TOKEN_LIMIT)),
      WindowDays: config.MCP_WINDOW_DAYS,
    };
  },
};

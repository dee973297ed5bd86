/**
 * CreateArticleRebateCode's mapping of an article to a new rebate code
 * (docs/decisions.md, "Reference values"): PunchTicket (3), ValueCard (4) and GiftCard (5) articles become
 * codes of the same type; the value comes from Price (cards) or Amount (punch tickets);
 * the code is valid from now for the article's ValidDays.
 */
import { roundMoney } from './rebate-codes.js';
import { invalid, type FieldError, type Wording } from './refusals.js';

export const PUNCH_TICKET = 3;
export const VALUE_CARD = 4;
export const GIFT_CARD = 5;
const CONVERTIBLE = [PUNCH_TICKET, VALUE_CARD, GIFT_CARD];
const DAY_MS = 24 * 3600 * 1000;

export interface ArticleFacts {
  id: number;
  articleTypeId: number;
  active: boolean;
  price: number | null;
  amount: number | null;
  validDays: number | null;
}

export interface NewRebateCodeValues {
  typeId: number;
  /** RebateCodeValue: the price rounded (cards) or the number of uses (punch tickets) */
  value: number;
  remainingAmount: number | null;
  remainingUsage: number | null;
  validFrom: string;
  validTo: string;
}

export type FromArticleResult = { values: NewRebateCodeValues; failure?: undefined } | { failure: FieldError; values?: undefined };

const refuse = (errorCode: string, message: Wording): FromArticleResult => ({ failure: invalid(errorCode, 'ArticleId', message) });

/**
 * The new code's type, value and period, or why the article cannot become one. An article
 * without a positive ValidDays, a card without a positive Price or a punch ticket without a
 * positive Amount would make a code nobody could use, so those are refused too.
 */
export function rebateCodeFromArticle(article: ArticleFacts, now: Date): FromArticleResult {
  if (!CONVERTIBLE.includes(article.articleTypeId)) {
    return refuse(
      'InvalidArticleType',
      (name) =>
        `${name} must name an article of type PunchTicket (3), ValueCard (4) or GiftCard (5); article ${article.id} is of type ${article.articleTypeId}.`,
    );
  }
  if (!article.active) return refuse('ArticleInactive', `Article ${article.id} is not active.`);
  if (!article.validDays || article.validDays <= 0) {
    return refuse('InvalidArticle', `Article ${article.id} has no ValidDays: a rebate code created from it would never be valid.`);
  }
  const validFrom = now.toISOString();
  const validTo = new Date(now.getTime() + article.validDays * DAY_MS).toISOString();
  if (article.articleTypeId === PUNCH_TICKET) {
    if (!article.amount || article.amount <= 0) return refuse('InvalidArticle', `Punch ticket article ${article.id} has no Amount (number of uses).`);
    return { values: { typeId: PUNCH_TICKET, value: article.amount, remainingAmount: null, remainingUsage: article.amount, validFrom, validTo } };
  }
  if (!article.price || article.price <= 0) return refuse('InvalidArticle', `Article ${article.id} has no Price.`);
  const price = roundMoney(article.price);
  return {
    values: { typeId: article.articleTypeId, value: Math.round(price), remainingAmount: price, remainingUsage: null, validFrom, validTo },
  };
}

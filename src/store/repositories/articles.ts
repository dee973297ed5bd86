import { sql, type Kysely } from 'kysely';
import { jsonHelpers, parseJson, type Json } from '../json.js';
import type { Database, Row } from '../schema.js';

export type ArticleRow = Row<'articles'>;
export type ArticleServiceRow = Row<'article_services'>;
/** A service as a rebate code shows it (RebateCodeServiceResponse). */
export type ServiceView = Pick<Row<'services'>, 'id' | 'name' | 'description' | 'active'>;

/** An article with its service relations (ArticleResponse.Services / ServiceIds). */
export interface ArticleWithServices {
  article: ArticleRow;
  services: ArticleServiceRow[];
}

/** Every column, named: the parts are read as JSON, and SQLite's json_object cannot take `*`. */
export const ARTICLE_COLUMNS = [
  'a.id', 'a.company_id', 'a.name', 'a.article_type_id', 'a.description', 'a.image_url', 'a.active', 'a.amount',
  'a.price', 'a.currency_id', 'a.sort_order', 'a.updated_date', 'a.created_date', 'a.duration', 'a.price_sign',
  'a.vat', 'a.valid_days', 'a.max_quantity', 'a.send_notification', 'a.notification_email',
] as const;
export const SERVICE_VIEW_COLUMNS = ['s.id', 's.name', 's.description', 's.active'] as const;

/**
 * Articles (read only: they come from the data file) as parts of other records: JSON
 * columns of a query that names the article by `articleId` and its company by `companyId`
 * (columns of the outer query, e.g. `r.article_id`; the article itself is read as `a`, so
 * the outer query must not be), so a record with its article is one statement.
 * `readArticle` turns the parts back into an ArticleWithServices.
 */
export function articlePart(db: Kysely<Database>, articleId: string, companyId: string) {
  return jsonHelpers(db).object(
    db.selectFrom('articles as a').select(ARTICLE_COLUMNS).where('a.id', '=', sql.ref<number>(articleId)).where('a.company_id', '=', sql.ref<string>(companyId)),
  );
}

/** The article's service relations, and the services themselves (as a code made from the article is connected to them). */
export function articleServiceParts(db: Kysely<Database>, articleId: string) {
  const json = jsonHelpers(db);
  const links = db.selectFrom('article_services as x').where('x.article_id', '=', sql.ref<number>(articleId));
  return {
    relations: json.array(links.select(['x.id', 'x.company_id', 'x.article_id', 'x.service_id']).orderBy('x.service_id')),
    services: json.array(links.innerJoin('services as s', 's.id', 'x.service_id').select(SERVICE_VIEW_COLUMNS).orderBy('s.id')),
  };
}

export function readArticle(parts: { article: Json<ArticleRow | null>; articleServices: Json<ArticleServiceRow[]> }): ArticleWithServices | undefined {
  const article = parseJson(parts.article);
  return article ? { article, services: parseJson(parts.articleServices) } : undefined;
}

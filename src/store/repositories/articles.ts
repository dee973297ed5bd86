import type { Kysely } from 'kysely';
import type { Database, Row } from '../schema.js';

export type ArticleRow = Row<'articles'>;
export type ArticleServiceRow = Row<'article_services'>;

/** An article with its service relations (ArticleResponse.Services / ServiceIds). */
export interface ArticleWithServices {
  article: ArticleRow;
  services: ArticleServiceRow[];
}

/** Articles of a company (read only: articles come from the data file). */
export function articlesRepository({ db }: { db: Kysely<Database> }) {
  return {
    async find(companyId: string, id: number): Promise<ArticleWithServices | undefined> {
      const article = await db.selectFrom('articles').selectAll().where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
      if (!article) return undefined;
      const services = await db.selectFrom('article_services').selectAll().where('article_id', '=', id).orderBy('service_id').execute();
      return { article, services };
    },
  };
}

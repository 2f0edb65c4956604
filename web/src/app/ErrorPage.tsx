import { isRouteErrorResponse, Link, useRouteError } from 'react-router-dom';
import { useT } from '../lib/i18n';

/** A screen that failed to load or draw: what happened, and the ways on. */
export function ErrorPage() {
  const t = useT();
  const error = useRouteError();
  const detail = isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : error instanceof Error ? error.message : null;
  return (
    <main className="error-page">
      <h1>{t('errorPage.title')}</h1>
      <p>{t('errorPage.body')}</p>
      {detail && <p className="muted">{detail}</p>}
      <div className="error-actions">
        <Link className="btn btn-primary" to="/dashboard">
          {t('errorPage.toDashboard')}
        </Link>
        <button type="button" className="btn btn-secondary" onClick={() => window.location.reload()}>
          {t('errorPage.reload')}
        </button>
      </div>
    </main>
  );
}

/** An address the app does not have, shown inside the signed-in layout. */
export function NotFoundPage() {
  const t = useT();
  return (
    <section className="not-found" aria-labelledby="not-found-title">
      <h1 id="not-found-title">{t('notFound.title')}</h1>
      <p className="muted">{t('notFound.body')}</p>
      <Link className="btn btn-primary" to="/dashboard">
        {t('errorPage.toDashboard')}
      </Link>
    </section>
  );
}

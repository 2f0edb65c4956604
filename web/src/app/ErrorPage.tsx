import { isRouteErrorResponse, Link, useRouteError } from 'react-router-dom';

export function ErrorPage() {
  const error = useRouteError();
  const detail = isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : error instanceof Error ? error.message : null;
  return (
    <main className="error-page">
      <h1>Unexpected Application Error!</h1>
      {detail && <p className="muted">{detail}</p>}
      <div className="error-actions">
        <Link className="btn btn-primary" to="/dashboard">
          Go to the dashboard
        </Link>
        <button type="button" className="btn btn-secondary" onClick={() => window.location.reload()}>
          Reload the page
        </button>
      </div>
    </main>
  );
}

// Routes whose screens are still being built: they exist so every link lands somewhere honest.
import { Link } from 'react-router-dom';
import { EmptyState } from '../../components/ui/card';

export function PendingPage({ title }: { title: string }) {
  return (
    <div className="page">
      <header className="page-header">
        <h1>{title}</h1>
      </header>
      <EmptyState title="This screen is not available yet" icon="⌛">
        <p className="muted">It is on its way. Meanwhile, the dashboard has everything that is ready.</p>
        <Link className="btn btn-primary" to="/dashboard">
          Back to the dashboard
        </Link>
      </EmptyState>
    </div>
  );
}

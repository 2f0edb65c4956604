// /admin: the owner's Admin Panel and the reseller's panel, one tab at a time, the tab in `?tab=`.
import { lazy, Suspense, useEffect, useRef, type ComponentType, type KeyboardEvent } from 'react';
import { useSearchParams } from 'react-router-dom';
import { Icon } from '../../components/ui/icons';
import { PageSpinner } from '../../components/ui/spinner';
import { useT } from '../../lib/i18n';
import { useCurrentUser } from '../../lib/session';
import { isTabId, TAB_ICONS, TAB_LABELS, tabsFor, useSelectTab, type TabId } from './tabs';

/** The interactive API reference the Worker serves (worker/routes/docs.ts). */
const API_DOCS_URL = '/api/docs';

// Each tab loads on demand, so opening the panel does not fetch every screen's code. A tab reads the
// signed-in user itself (lib/session) and opens another tab with useSelectTab (tabs.ts).
const OverviewTab = lazy(() => import('./overview/OverviewTab').then((m) => ({ default: m.OverviewTab })));
const ResellerStatistics = lazy(() => import('./resellers/ResellerStatistics').then((m) => ({ default: m.ResellerStatistics })));

/** A reseller's Overview opens on their own statistics ("My Statistics"), above the panel's figures. */
function Overview() {
  const user = useCurrentUser()!;
  return (
    <>
      {user.role === 'reseller' && <ResellerStatistics />}
      <OverviewTab />
    </>
  );
}

const panels: Record<TabId, ComponentType> = {
  overview: Overview,
  resellers: lazy(() => import('./resellers/ResellersTab').then((m) => ({ default: m.ResellersTab }))),
  users: lazy(() => import('./users/UsersTab').then((m) => ({ default: m.UsersTab }))),
  products: lazy(() => import('./products/ProductsTab').then((m) => ({ default: m.ProductsTab }))),
  keys: lazy(() => import('./license-keys/KeysTab').then((m) => ({ default: m.KeysTab }))),
  generate: lazy(() => import('./generation/GenerateKeysTab').then((m) => ({ default: m.GenerateKeysTab }))),
  purchase: lazy(() => import('./purchases/DirectPurchaseTab').then((m) => ({ default: m.DirectPurchaseTab }))),
  payments: lazy(() => import('./payments/PaymentsTab').then((m) => ({ default: m.PaymentsTab }))),
  webhooks: lazy(() => import('./webhooks/WebhooksTab').then((m) => ({ default: m.WebhooksTab }))),
  mail: lazy(() => import('./mail/MailTab').then((m) => ({ default: m.MailTab }))),
  settings: lazy(() => import('./settings/SettingsTab').then((m) => ({ default: m.SettingsTab }))),
};

/** Owner-only tabs whose screen says so itself when reached by URL (a refusal text of its own for non-owners). */
const EXPLAINS_ITS_REFUSAL: TabId[] = ['generate', 'settings'];

export function AdminPage() {
  const user = useCurrentUser()!;
  const [params] = useSearchParams();
  const tabs = tabsFor(user.role);
  const requested = params.get('tab');
  const refused = isTabId(requested) && !tabs.includes(requested) && EXPLAINS_ITS_REFUSAL.includes(requested) ? requested : null;
  const selected: TabId = isTabId(requested) && tabs.includes(requested) ? requested : 'overview';
  const tabRefs = useRef<Partial<Record<TabId, HTMLButtonElement | null>>>({});

  const selectTab = useSelectTab();
  const t = useT();

  // Where the tab row scrolls sideways, the selected tab is kept in view.
  useEffect(() => {
    tabRefs.current[selected]?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [selected]);

  // Arrow keys, Home and End move between tabs (WAI-ARIA tabs pattern, automatic activation).
  function onKeyDown(e: KeyboardEvent<HTMLDivElement>) {
    const index = tabs.indexOf(selected);
    const next =
      e.key === 'ArrowRight'
        ? tabs[(index + 1) % tabs.length]
        : e.key === 'ArrowLeft'
          ? tabs[(index - 1 + tabs.length) % tabs.length]
          : e.key === 'Home'
            ? tabs[0]
            : e.key === 'End'
              ? tabs[tabs.length - 1]
              : null;
    if (!next) return;
    e.preventDefault();
    selectTab(next);
    tabRefs.current[next]?.focus();
  }

  const shown = refused ?? selected;
  const Panel = panels[shown];
  return (
    <div className="page">
      <header className="page-header-row">
        <div className="page-header">
          <h1>{user.role === 'owner' ? t('admin.title') : t('admin.resellerTitle')}</h1>
          <p className="muted">{user.role === 'owner' ? t('admin.subtitle') : t('admin.resellerSubtitle')}</p>
        </div>
        {/* The Worker's page, not a route of this app: a plain link, in its own tab so the panel stays open. */}
        <a className="btn btn-secondary btn-sm" href={API_DOCS_URL} target="_blank" rel="noopener">
          {t('admin.apiReference')}
          <span className="visually-hidden"> {t('admin.opensInNewTab')}</span>
        </a>
      </header>
      <div className="tabs" role="tablist" aria-label={t('admin.sections')} onKeyDown={onKeyDown}>
        {tabs.map((tab) => (
          <button
            key={tab}
            ref={(node) => {
              tabRefs.current[tab] = node;
            }}
            type="button"
            role="tab"
            id={`admin-tab-${tab}`}
            aria-selected={!refused && tab === selected}
            aria-controls={`admin-panel-${tab}`}
            tabIndex={tab === selected ? 0 : -1}
            className="tab"
            onClick={() => selectTab(tab)}
          >
            <Icon name={TAB_ICONS[tab]} size={16} />
            {t(TAB_LABELS[tab])}
          </button>
        ))}
      </div>
      <div
        className="tab-panel"
        {...(refused
          ? { role: 'region', 'aria-label': t(TAB_LABELS[refused]) }
          : { role: 'tabpanel', id: `admin-panel-${selected}`, 'aria-labelledby': `admin-tab-${selected}` })}
      >
        <Suspense fallback={<PageSpinner label={t('admin.loading')} />}>
          <Panel key={shown} />
        </Suspense>
      </div>
    </div>
  );
}

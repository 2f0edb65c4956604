// The signed-in layout: sidebar (collapsing on small screens) and the header with balances.
import { atom, useAtom } from 'jotai';
import { useEffect } from 'react';
import { NavLink, Outlet, useLocation, useNavigate } from 'react-router-dom';
import { RoleBadge } from '../components/users/roles';
import { Icon } from '../components/ui/icons';
import { toast } from '../components/ui/toast';
import { useCurrentUser, useLogout, useProfile } from '../lib/session';
import { SiteNotices } from '../features/site-status/SiteNotices';
import { TOAST_SMALL_MS } from '../lib/constants';
import { formatCredits, formatUsd } from '../lib/format';
import { adminNavItem, MAIN_NAV } from './nav';
import { asyncHandler } from '../lib/async-handler';
import { LanguagePicker } from '../components/LanguagePicker';
import { switchLanguage, useLanguage, useT } from '../lib/i18n';

export const sidebarOpenAtom = atom(false);

export function Layout() {
  const user = useCurrentUser();
  const profile = useProfile();
  const logout = useLogout();
  const navigate = useNavigate();
  const location = useLocation();
  const [sidebarOpen, setSidebarOpen] = useAtom(sidebarOpenAtom);
  const t = useT();
  const { language } = useLanguage();
  const accountLanguage = user?.language;

  // The account's own language, once the profile says it: it wins over this browser's.
  useEffect(() => {
    if (accountLanguage && accountLanguage !== language) void switchLanguage(accountLanguage, { remember: true });
  }, [accountLanguage, language]);

  useEffect(() => setSidebarOpen(false), [location.pathname, setSidebarOpen]);

  const admin = user ? adminNavItem(user.role) : null;
  const items = admin ? [...MAIN_NAV, admin] : MAIN_NAV;

  async function refreshBalance() {
    const result = await profile.refetch();
    // The original showed the failure in success styling; it is an error and looks like one.
    if (result.isError) toast.error(t('shell.refreshFailed'));
    else toast.success(t('shell.refreshed'), TOAST_SMALL_MS);
  }

  async function onLogout() {
    await logout();
    void navigate('/login', { replace: true });
  }

  return (
    <div className={`shell ${sidebarOpen ? 'sidebar-open' : ''}`}>
      <a className="skip-link" href="#main">
        {t('shell.skipToContent')}
      </a>
      <aside className="sidebar" id="sidebar">
        <div className="sidebar-brand">
          <img src="/favicon.svg" alt="" width={28} height={28} />
          <span>KeyPanel</span>
        </div>
        <nav aria-label={t('shell.mainNavigation')}>
          <ul>
            {items.map((item) => (
              <li key={item.to}>
                <NavLink to={item.to} className={({ isActive }) => `nav-link ${isActive ? 'active' : ''}`}>
                  <Icon name={item.icon} className="nav-icon" />
                  {t(item.label)}
                </NavLink>
              </li>
            ))}
          </ul>
          <ul className="nav-secondary">
            <li>
              <NavLink to="/settings/security" className={({ isActive }) => `nav-link ${isActive ? 'active' : ''}`}>
                <Icon name="shield" className="nav-icon" />
                {t('nav.security')}
              </NavLink>
            </li>
          </ul>
        </nav>
      </aside>
      {sidebarOpen && <div className="sidebar-scrim" onClick={() => setSidebarOpen(false)} aria-hidden="true" />}
      <div className="main-column">
        <header className="topbar">
          <button
            type="button"
            className="icon-button menu-button"
            aria-label={sidebarOpen ? t('shell.closeMenu') : t('shell.openMenu')}
            aria-expanded={sidebarOpen}
            aria-controls="sidebar"
            onClick={() => setSidebarOpen(!sidebarOpen)}
          >
            <Icon name={sidebarOpen ? 'close' : 'menu'} size={20} />
          </button>
          <div className="topbar-spacer" />
          <LanguagePicker />
          {user && (
            <div className="topbar-account">
              <div className="balances" aria-label={t('shell.yourBalances')}>
                <span className="balance" title={t('shell.usdBalance')}>
                  <span className="balance-label">USD</span> <strong data-testid="header-balance">{formatUsd(user.balance)}</strong>
                </span>
                <span className="balance" title={t('shell.credits')}>
                  <span className="balance-label">{t('shell.credits')}</span>{' '}
                  <strong data-testid="header-credits">{formatCredits(user.credits)}</strong>
                </span>
                <button
                  type="button"
                  className="icon-button"
                  aria-label={t('shell.refreshBalance')}
                  onClick={asyncHandler(refreshBalance)}
                  disabled={profile.isFetching}
                >
                  <Icon name="refresh" size={16} className={profile.isFetching ? 'spin' : ''} />
                </button>
              </div>
              <div className="who">
                <span className="who-name" data-testid="header-username">
                  {user.username}
                </span>
                <RoleBadge role={user.role} />
              </div>
              <button type="button" className="btn btn-secondary btn-sm" onClick={asyncHandler(onLogout)}>
                {t('shell.logout')}
              </button>
            </div>
          )}
        </header>
        <main id="main" className="content" tabIndex={-1}>
          {user && <SiteNotices user={user} />}
          <Outlet />
        </main>
      </div>
    </div>
  );
}

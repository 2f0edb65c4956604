// The Users tab (Admin User Management): search, role filter, user cards,
// pagination, and the create, edit, add-funds and delete dialogs.
import { useEffect, useState } from 'react';
import type { Schemas } from '../../../../../worker/platform/api-client';
import { RoleBadge, RoleOptions } from '../../../components/users/roles';
import { Badge } from '../../../components/ui/badge';
import { EmptyState } from '../../../components/ui/card';
import { Detail } from '../../../components/ui/detail';
import { Field, SelectField } from '../../../components/ui/field';
import { Icon } from '../../../components/ui/icons';
import { Pagination } from '../../../components/ui/pagination';
import { QueryState } from '../../../components/ui/query-state';
import { toast } from '../../../components/ui/toast';
import { useDebounced } from '../../../lib/debounce';
import { formatCredits, formatDate, formatRelativeTime, formatUsd } from '../../../lib/format';
import { useT } from '../../../lib/i18n';
import { useCurrentUser } from '../../../lib/session';
import { useAdminUsers, type UsersQuery } from './api';
import { AddFundsModal, CreateUserModal, DeleteUserModal, EditUserModal } from './UserModals';

type User = Schemas['User'];

type Dialog = { kind: 'create' } | { kind: 'edit' | 'funds' | 'delete'; user: User } | null;

function UserCard({ user, isSelf, open }: { user: User; isSelf: boolean; open: (dialog: Dialog) => void }) {
  const t = useT();
  return (
    <li className="user-card card">
      <div className="user-card-head">
        <div className="user-card-title">
          <h3>
            {user.username}
            {isSelf && <span className="muted small"> {t('admin.users.you')}</span>}
          </h3>
          <div className="user-card-badges">
            <RoleBadge role={user.role} />
            <Badge tone={user.isActive ? 'green' : 'red'}>{user.isActive ? t('admin.users.active') : t('admin.users.inactive')}</Badge>
          </div>
        </div>
        <div className="muted small user-email">{user.email}</div>
      </div>
      <dl className="user-card-figures">
        <Detail label={t('admin.users.balance')}>{formatUsd(user.balance)}</Detail>
        <Detail label={t('admin.users.credits')}>{formatCredits(user.credits)}</Detail>
        <Detail label={t('admin.users.joined')}>{formatDate(user.createdAt)}</Detail>
        <Detail label={t('admin.users.lastLogin')}>{formatRelativeTime(user.lastLogin)}</Detail>
      </dl>
      <div className="user-card-actions">
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          aria-label={t('admin.users.editNamed', { username: user.username })}
          onClick={() => open({ kind: 'edit', user })}
        >
          {t('admin.users.edit')}
        </button>
        <button
          type="button"
          className="btn btn-secondary btn-sm"
          aria-label={t('admin.users.addFundsNamed', { username: user.username })}
          onClick={() => open({ kind: 'funds', user })}
        >
          <Icon name="dollar" size={14} />
          {t('admin.users.addFunds')}
        </button>
        <button
          type="button"
          className="btn btn-danger btn-sm"
          aria-label={t('admin.users.deleteNamed', { username: user.username })}
          onClick={() => open({ kind: 'delete', user })}
        >
          {t('admin.users.delete')}
        </button>
      </div>
    </li>
  );
}

export function UsersTab() {
  const me = useCurrentUser()!;
  const [search, setSearch] = useState('');
  const [role, setRole] = useState<UsersQuery['role']>('');
  const [page, setPage] = useState(1);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [debouncedSearch] = useDebounced(search);
  const users = useAdminUsers({ page, search: debouncedSearch, role });
  const t = useT();

  useEffect(() => {
    if (users.isError) toast.error(t('admin.users.loadFailed'));
  }, [users.isError, t]);

  const close = () => setDialog(null);

  return (
    <section aria-labelledby="users-title" className="admin-section">
      <div className="section-head">
        <div>
          <h2 id="users-title">{t('admin.users.title')}</h2>
          <p className="muted">{users.data ? t('admin.users.accounts', { count: users.data.total }) : t('admin.users.subtitle')}</p>
        </div>
        <button type="button" className="btn btn-primary" onClick={() => setDialog({ kind: 'create' })}>
          <Icon name="plus" size={16} />
          {t('admin.users.create')}
        </button>
      </div>

      <div className="filters">
        <Field
          label={t('admin.users.search')}
          id="user-search"
          className="grow"
          type="search"
          placeholder={t('admin.users.searchPlaceholder')}
          value={search}
          onChange={(e) => {
            setSearch(e.target.value);
            setPage(1);
          }}
        />
        <SelectField
          label={t('admin.users.role')}
          id="user-role-filter"
          value={role}
          onChange={(e) => {
            setRole(e.target.value as UsersQuery['role']);
            setPage(1);
          }}
        >
          <option value="">{t('admin.users.allRoles')}</option>
          <RoleOptions />
        </SelectField>
      </div>

      <QueryState
        query={users}
        loading={t('admin.users.loading')}
        failed={t('admin.users.loadFailed')}
        keepDataOnError
        isEmpty={(data) => data.users.length === 0}
        empty={
          <EmptyState title={t('admin.users.emptyTitle')}>
            <p className="muted">{search || role ? t('admin.users.emptyFiltered') : t('admin.users.empty')}</p>
          </EmptyState>
        }
      >
        {(data) => (
          <ul className="user-grid" aria-busy={users.isFetching}>
            {data.users.map((u) => (
              <UserCard key={u._id} user={u} isSelf={u._id === me._id} open={setDialog} />
            ))}
          </ul>
        )}
      </QueryState>
      {users.data && <Pagination page={page} totalPages={users.data.totalPages} onChange={setPage} disabled={users.isFetching} />}

      <CreateUserModal open={dialog?.kind === 'create'} onClose={close} />
      {dialog && dialog.kind === 'edit' && <EditUserModal user={dialog.user} onClose={close} />}
      {dialog && dialog.kind === 'funds' && <AddFundsModal user={dialog.user} onClose={close} />}
      {dialog && dialog.kind === 'delete' && <DeleteUserModal user={dialog.user} onClose={close} />}
    </section>
  );
}

import type { Role } from '../lib/session.ts';

/** The Main navigation (A2): each link shown only to the roles that may use it. */
export const NAV_LINKS: { label: string; to: string; roles: readonly Role[] }[] = [
  { label: 'Home', to: '/', roles: ['owner', 'admin', 'manager'] },
  { label: 'My day', to: '/my-day', roles: ['member'] },
  { label: 'Schedule', to: '/schedule', roles: ['owner', 'admin', 'manager', 'member'] },
  { label: 'Clients', to: '/clients', roles: ['owner', 'admin', 'manager', 'member'] },
  { label: 'Requests', to: '/requests', roles: ['owner', 'admin', 'manager'] },
  { label: 'Quotes', to: '/quotes', roles: ['owner', 'admin', 'manager'] },
  { label: 'Jobs', to: '/jobs', roles: ['owner', 'admin', 'manager', 'member'] },
  { label: 'Invoices', to: '/invoices', roles: ['owner', 'admin', 'manager'] },
  { label: 'Timesheets', to: '/timesheets', roles: ['owner', 'admin', 'manager', 'member'] },
  { label: 'Reports', to: '/reports', roles: ['owner', 'admin', 'manager'] },
  { label: 'Settings', to: '/settings', roles: ['owner', 'admin'] },
];

export const navFor = (role: Role) => NAV_LINKS.filter((l) => l.roles.includes(role));

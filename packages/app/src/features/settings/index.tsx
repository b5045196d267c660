// Settings (A5): owners and admins only (the API refuses the rest anyway); one
// sub-route per area under a "Settings" navigation, each page with its own h1.
import { Anchor, Group, Stack, Text } from '@mantine/core';
import { NavLink, Outlet, Route, Routes } from 'react-router';
import { NoAccess } from '../../components/no-access.tsx';
import { NotFound } from '../../components/not-found.tsx';
import { Page } from '../../components/page.tsx';
import { useCan } from '../../lib/session.ts';
import AutomationsPage from './automations-page.tsx';
import CompanyPage from './company-page.tsx';
import KeysPage from './keys-page.tsx';
import MessagesPage from './messages-page.tsx';
import NotificationsPage from './notifications-page.tsx';
import CustomFieldsPage from './custom-fields-page.tsx';
import ExportPage from './export-page.tsx';
import ImportPage from './import-page.tsx';
import PriceBookPage from './price-book-page.tsx';
import QuoteTemplatesPage from './quote-templates-page.tsx';
import TaxRatesPage from './tax-rates-page.tsx';
import TeamPage from './team-page.tsx';
import WebhooksPage from './webhooks-page.tsx';

const AREAS = [
  { to: 'company', label: 'Company', about: "The business's name, contact details and regional settings." },
  { to: 'team', label: 'Team', about: 'Members and their roles, invites by email.' },
  { to: 'keys', label: 'API keys', about: 'Keys for integrations: create, see when they were last used, revoke.' },
  { to: 'webhooks', label: 'Webhooks', about: 'Where events are sent, and the log of their deliveries.' },
  { to: 'notifications', label: 'Notifications', about: 'Which customer emails and SMS are sent, and what they say.' },
  { to: 'automations', label: 'Automations', about: 'Quote follow-ups, invoice reminders and visit reminders that go out by themselves.' },
  { to: 'price-book', label: 'Price book', about: 'The services and products quotes and invoices pick from.' },
  { to: 'quote-templates', label: 'Quote templates', about: 'The line items, pricing and message a new quote can start from.' },
  { to: 'custom-fields', label: 'Custom fields', about: 'Extra fields on clients, requests, quotes, jobs and invoices.' },
  { to: 'tax-rates', label: 'Tax rates', about: 'The tax rates quotes and invoices pick from.' },
  { to: 'messages', label: 'Messages', about: 'The customer emails and SMS sent, with their status.' },
  { to: 'import', label: 'Import', about: 'Clients or price book services from a spreadsheet (CSV).' },
  { to: 'export', label: 'Export', about: 'Everything in the workspace as one ZIP file.' },
] as const;

function SettingsNav() {
  return (
    <nav aria-label="Settings">
      <Group gap="md" wrap="wrap">
        {AREAS.map((a) => (
          <Anchor key={a.to} component={NavLink} to={`/settings/${a.to}`} fw={500}>
            {a.label}
          </Anchor>
        ))}
      </Group>
    </nav>
  );
}

function SettingsLayout() {
  const can = useCan();
  // Decided from the session's scopes (GET /api/v1/me) before any page asks; its reads would answer 403 anyway.
  if (!can('workspace:write')) return <NoAccess area="settings" />;
  return (
    <Stack gap="md">
      <SettingsNav />
      <Outlet />
    </Stack>
  );
}

function SettingsHome() {
  return (
    <Page title="Settings">
      <Stack gap="xs">
        {AREAS.map((a) => (
          <Text key={a.to}>
            <Anchor component={NavLink} to={`/settings/${a.to}`}>
              {a.label}
            </Anchor>
            {' · '}
            {a.about}
          </Text>
        ))}
      </Stack>
    </Page>
  );
}

export default function SettingsRoutes() {
  return (
    <Routes>
      <Route element={<SettingsLayout />}>
        <Route index element={<SettingsHome />} />
        <Route path="company" element={<CompanyPage />} />
        <Route path="team" element={<TeamPage />} />
        <Route path="keys" element={<KeysPage />} />
        <Route path="webhooks" element={<WebhooksPage />} />
        <Route path="notifications" element={<NotificationsPage />} />
        <Route path="automations" element={<AutomationsPage />} />
        <Route path="messages" element={<MessagesPage />} />
        <Route path="tax-rates" element={<TaxRatesPage />} />
        <Route path="price-book" element={<PriceBookPage />} />
        <Route path="quote-templates" element={<QuoteTemplatesPage />} />
        <Route path="custom-fields" element={<CustomFieldsPage />} />
        <Route path="import" element={<ImportPage />} />
        <Route path="export" element={<ExportPage />} />
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}

// "Team" (A5): members with their roles (change one, "Remove"), "Invite team
// member" (an email with a setup link valid 7 days), and pending invites with
// "Resend" and "Cancel". Refusals (the last owner, an admin touching an owner)
// come from the API and show as its message.
import { Anchor, Button, Card, Group, NativeSelect, NumberInput, Stack, Table, Text, TextInput, VisuallyHidden } from '@mantine/core';
import type { components } from '@fieldwork/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { FormError, useApiForm } from '../../components/api-form.tsx';
import { Page } from '../../components/page.tsx';
import { FormButtons, RowsTable } from './shared/settings-table.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { formatAgo } from '../../lib/format.ts';
import { useMe } from '../../lib/session.ts';
import { useApiAction } from '../../components/api-action.tsx';

type Role = components['schemas']['CreateTeamInviteBody']['role'];
type Member = components['schemas']['User'];
const ROLES: { value: Role; label: string }[] = [
  { value: 'owner', label: 'Owner' },
  { value: 'admin', label: 'Admin' },
  { value: 'manager', label: 'Manager' },
  { value: 'member', label: 'Member' },
];
const isRole = (r: string): r is Role => ROLES.some((x) => x.value === r);
const MEMBERS = ['team', 'members'] as const;
const INVITES = ['team', 'invites'] as const;
const nameOf = (p: { first_name: string | null; last_name: string | null; email: string }) => [p.first_name, p.last_name].filter(Boolean).join(' ') || p.email;

export default function TeamPage() {
  const [inviting, setInviting] = useState(false);
  const [sent, setSent] = useState<string | null>(null);
  return (
    <Page title="Team" actions={!inviting && <Button onClick={() => (setInviting(true), setSent(null))}>Invite team member</Button>}>
      {inviting && (
        <InviteForm
          onCancel={() => setInviting(false)}
          onSent={(email) => {
            setInviting(false);
            setSent(email);
          }}
        />
      )}
      {sent && (
        // A13: the email is queued, not yet sent (without SMTP_URL, or to a refused address, it never is):
        // say where it went, and where its fate shows.
        <Text role="status" fw={500}>
          {`Invite for ${sent} created; its email is in the `}
          <Anchor component={Link} to="/settings/messages">
            message log
          </Anchor>
          . If it does not arrive, use "Copy setup link" below.
        </Text>
      )}
      <Invites />
      <Members />
    </Page>
  );
}

function InviteForm({ onCancel, onSent }: { onCancel: () => void; onSent: (email: string) => void }) {
  const client = useQueryClient();
  const { form, onSubmit, pending, error } = useApiForm({
    initialValues: { email: '', role: 'member' as Role },
    submit: (body, { idempotencyKey }) => unwrap(api.POST('/api/v1/team/invites', { body, headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: (result) => {
      void client.invalidateQueries({ queryKey: ['team'] });
      onSent(result.data.email);
    },
  });
  return (
    <Card withBorder maw={560}>
      <form onSubmit={onSubmit} noValidate aria-label="Invite team member">
        <Stack gap="sm">
          <Text component="h2" fw={600}>
            Invite team member
          </Text>
          <FormError error={error} />
          <TextInput label="Email" type="email" required {...form.getInputProps('email')} />
          <NativeSelect label="Role" data={ROLES} {...form.getInputProps('role')} />
          <Text size="sm" c="dimmed">
            They get an email with a link to set their password, valid for 7 days.
          </Text>
          <FormButtons save="Send invite" pending={pending} onCancel={onCancel} />
        </Stack>
      </form>
    </Card>
  );
}

function useInvites() {
  return useQuery({ queryKey: INVITES, queryFn: async () => (await unwrap(api.GET('/api/v1/team/invites', { params: { query: { per_page: 100 } } }))).data });
}

function Invites() {
  const client = useQueryClient();
  const invites = useInvites();
  const [note, setNote] = useState<string | null>(null);
  const resend = useApiAction({
    run: (id: number, { idempotencyKey }) => unwrap(api.POST('/api/v1/team/invites/{id}/resend', { params: { path: { id } }, headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: (r) => setNote(`A new invite email for ${r.data.email} is in the message log.`),
    onSettled: () => client.invalidateQueries({ queryKey: INVITES }),
  });
  const [link, setLink] = useState<{ email: string; url: string } | null>(null);
  const copyLink = useApiAction({
    run: (id: number, { idempotencyKey }) => unwrap(api.POST('/api/v1/team/invites/{id}/setup-link', { params: { path: { id } }, headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: (r, id) => {
      const email = invites.data?.find((i) => i.id === id)?.email ?? '';
      setLink({ email, url: r.data.url });
      // The browser may refuse the clipboard (no permission, not https): the link is shown to copy by hand too.
      void navigator.clipboard?.writeText(r.data.url).catch(() => {});
    },
    onSettled: () => client.invalidateQueries({ queryKey: INVITES }),
  });
  const cancel = useApiAction({
    run: (id: number, { idempotencyKey }) => unwrap(api.DELETE('/api/v1/team/invites/{id}', { params: { path: { id } }, headers: { 'idempotency-key': idempotencyKey } })),
    onSuccess: () => setNote('Invite cancelled.'),
    onSettled: () => client.invalidateQueries({ queryKey: ['team'] }),
  });
  if (!invites.data?.length) return null;
  const failed = resend.error ?? cancel.error ?? copyLink.error;
  return (
    <Stack gap="xs">
      <Text component="h2" fw={600}>
        Pending invites
      </Text>
      {failed && (
        <Text c="red.8" role="alert">
          {failed.message}
        </Text>
      )}
      {note && <Text role="status">{note}</Text>}
      {link && (
        <TextInput
          label={`Setup link for ${link.email}`}
          readOnly
          value={link.url}
          onFocus={(e) => e.currentTarget.select()}
          description="Copied. Send it to them yourself: it works once, for 7 days."
          maw={560}
        />
      )}
      <RowsTable
        caption="Pending invites"
        rows={invites.data}
        rowKey={(i) => i.id}
        columns={[
          { header: 'Email', cell: (i) => i.email },
          { header: 'Role', cell: (i) => ROLES.find((r) => r.value === i.role)?.label ?? i.role },
          { header: 'Invite email', cell: (i) => emailState(i) },
          { header: 'Invited', visibleFrom: 'sm', cell: (i) => (i.last_sent_at ? formatAgo(i.last_sent_at) : '') },
        ]}
        actions={(i) => (
          <Group gap="xs" wrap="wrap">
            <Button size="xs" variant="default" loading={resend.pending && resend.variables === i.id} onClick={() => resend.run(i.id)}>
              Resend
            </Button>
            <Button size="xs" variant="default" loading={copyLink.pending && copyLink.variables === i.id} onClick={() => copyLink.run(i.id)}>
              Copy setup link
            </Button>
            <Button size="xs" variant="outline" color="red.8" loading={cancel.pending && cancel.variables === i.id} onClick={() => cancel.run(i.id)}>
              Cancel
            </Button>
          </Group>
        )}
      />
    </Stack>
  );
}

/** What became of the invite's latest email, from the message log: never "sent" until it was. */
function emailState(i: { email_status: string | null; email_error: string | null }): string {
  switch (i.email_status) {
    case 'sent':
      return 'Sent';
    case 'queued':
      return 'Waiting to send';
    case 'not_sent':
      return `Not sent${i.email_error ? `: ${i.email_error}` : ''}`;
    case 'failed':
      return `Could not be sent${i.email_error ? `: ${i.email_error}` : ''}`;
    default:
      return 'No email';
  }
}

function Members() {
  const me = useMe();
  const client = useQueryClient();
  const invites = useInvites();
  const members = useQuery({ queryKey: MEMBERS, queryFn: async () => (await unwrap(api.GET('/api/v1/users', { params: { query: { per_page: 100, sort_by: 'name' } } }))).data });
  const update = useApiAction({
    run: ({ userId, role }: { userId: string; role: Role }, { idempotencyKey }) =>
      unwrap(api.PUT('/api/v1/users/{user_id}', { params: { path: { user_id: userId } }, body: { role }, headers: { 'idempotency-key': idempotencyKey } })),
    onSettled: () => client.invalidateQueries({ queryKey: MEMBERS }),
  });
  const remove = useApiAction({
    run: (userId: string, { idempotencyKey }) => unwrap(api.DELETE('/api/v1/users/{user_id}', { params: { path: { user_id: userId } }, headers: { 'idempotency-key': idempotencyKey } })),
    onSettled: () => client.invalidateQueries({ queryKey: ['team'] }),
  });
  if (members.error) return <Text role="alert">{members.error.message}</Text>;
  if (!members.data || !invites.data) return null;
  // Invited people are members already (their account waits for its setup link): listed above, not here.
  const pending = new Set(invites.data.map((i) => i.user_id));
  const list = members.data.filter((m: Member) => !pending.has(m.user_id));
  const failed = update.error ?? remove.error;
  return (
    <Stack gap="xs">
      <Text component="h2" fw={600}>
        Members
      </Text>
      {failed && (
        <Text c="red.8" role="alert">
          {failed.message}
        </Text>
      )}
      <RowsTable
        caption="Members"
        rows={list}
        rowKey={(m) => m.user_id}
        columns={[
          {
            header: 'Name',
            cell: (m) => (
              <>
                {nameOf(m)}
                {m.user_id === me.user.id && ' (you)'}
                <Text size="xs" c="dimmed" visibleFrom="sm">
                  {m.email}
                </Text>
              </>
            ),
          },
          {
            header: 'Role',
            cell: (m) => (
              <NativeSelect
                // Named by the person, under the column "Role": a label with "Role" in it would
                // make the invite form's "Role" ambiguous to anyone finding fields by label.
                aria-label={nameOf(m)}
                size="xs"
                data={ROLES}
                value={isRole(m.role) ? m.role : 'member'}
                disabled={update.pending}
                onChange={(e) => {
                  const role = e.currentTarget.value;
                  if (isRole(role)) update.run({ userId: m.user_id, role });
                }}
              />
            ),
          },
          { header: 'Cost per hour', cell: (m) => <CostPerHour member={m} /> },
        ]}
        actions={(m) => (
          <Button size="xs" variant="outline" color="red.8" loading={remove.pending && remove.variables === m.user_id} onClick={() => remove.run(m.user_id)}>
            Remove
          </Button>
        )}
      />
    </Stack>
  );
}

/** A10: a member's cost per hour (E26, job costing), saved when the field is left; empty clears it. */
function CostPerHour({ member }: { member: Member }) {
  const client = useQueryClient();
  const saved = member.cost_rate ?? null;
  const [value, setValue] = useState<string | number>(saved ?? '');
  const save = useMutation({
    mutationFn: (cost_rate: number | null) =>
      unwrap(api.PUT('/api/v1/users/{user_id}', { params: { path: { user_id: member.user_id } }, body: { cost_rate }, headers: { 'idempotency-key': crypto.randomUUID() } })),
    onSettled: () => client.invalidateQueries({ queryKey: MEMBERS }),
  });
  return (
    <NumberInput
      aria-label={`Cost per hour for ${nameOf(member)}`}
      size="xs"
      w={110}
      min={0}
      decimalScale={2}
      hideControls
      value={value}
      onChange={setValue}
      error={save.error?.message}
      onBlur={() => {
        const next = value === '' ? null : Number(value);
        if (next !== saved && (next === null || Number.isFinite(next))) save.mutate(next);
      }}
    />
  );
}

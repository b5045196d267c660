import { Alert, Anchor, Button, Center, Loader, Stack, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { PasswordField } from '../../components/password-field.tsx';
import { FormError, useApiForm } from '../../components/api-form.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { browserTimeZone } from '../../lib/regions.ts';
import { type Me, useResetSession, useSession } from '../../lib/session.ts';
import { AuthLayout } from './auth-layout.tsx';

/**
 * A setup link (A1): a person without a password creates their account; one who
 * has a password signs in, then joins the workspace with "Join workspace".
 */
export default function SetupPage() {
  const { token = '' } = useParams();
  const session = useSession();
  const info = useQuery({
    queryKey: ['setup-info', token],
    queryFn: async () => (await unwrap(api.POST('/api/auth/setup-info', { body: { token } }))).data,
    staleTime: Number.POSITIVE_INFINITY,
  });
  if (session.isPending || info.isPending)
    return (
      <Center h="60vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  if (info.isError)
    return (
      <AuthLayout title="Set up your account">
        <Alert color="red" role="alert">
          {info.error.message}
        </Alert>
        <Anchor component={Link} to="/sign-in" size="sm">
          Go to sign in
        </Anchor>
      </AuthLayout>
    );
  const { has_password, workspace, first_name, last_name } = info.data;
  if (has_password && session.data) return <JoinWorkspace token={token} workspace={workspace.name} />;
  if (has_password)
    return (
      <AuthLayout title="Join a workspace">
        <Text>
          You were invited to {workspace.name}. Sign in with your Fieldwork password to join it.
        </Text>
        <Button component={Link} to={`/sign-in?next=${encodeURIComponent(`/setup/${token}`)}`}>
          Sign in to join
        </Button>
      </AuthLayout>
    );
  return <CreateAccount token={token} workspace={workspace.name} firstName={first_name ?? ''} lastName={last_name ?? ''} />;
}

type SetupBody = { token: string; first_name?: string; last_name?: string; password?: string };
const setup = (body: SetupBody, idempotencyKey: string) => unwrap(api.POST('/api/auth/setup', { body, headers: { 'idempotency-key': idempotencyKey } }));

function useSignedIn() {
  const navigate = useNavigate();
  const reset = useResetSession();
  return async (answer: Awaited<ReturnType<typeof setup>>) => {
    await reset(await takeBrowserTimeZone(answer.data));
    navigate('/', { replace: true });
  };
}

/**
 * A164: a new workspace takes the time zone of its first owner's browser. A
 * workspace still on the default (UTC) when an owner or admin sets up their account
 * is moved to the browser's zone; one whose zone was chosen (by `fieldwork
 * workspace create --timezone`, or in Settings) keeps it. Failing, it stays on UTC:
 * Settings -> Company changes it any time.
 */
async function takeBrowserTimeZone(me: Me): Promise<Me> {
  const zone = browserTimeZone();
  const mayChange = me.user.role === 'owner' || me.user.role === 'admin';
  if (!mayChange || !zone || zone === 'UTC' || (me.workspace.timezone && me.workspace.timezone !== 'UTC')) return me;
  try {
    const updated = await unwrap(api.PUT('/api/v1/workspace', { body: { timezone: zone }, headers: { 'x-csrf-token': me.csrf_token ?? '' } }));
    return { ...me, workspace: { ...me.workspace, timezone: updated.data.timezone } };
  } catch {
    return me;
  }
}

function CreateAccount({ token, workspace, firstName, lastName }: { token: string; workspace: string; firstName: string; lastName: string }) {
  const done = useSignedIn();
  const { form, onSubmit, pending, error } = useApiForm({
    initialValues: { first_name: firstName, last_name: lastName, password: '' },
    validate: { password: (v) => (v.length < 10 ? 'Use at least 10 characters' : null) },
    submit: (values, { idempotencyKey }) => setup({ token, ...values }, idempotencyKey),
    onSuccess: done,
  });
  return (
    <AuthLayout title="Set up your account">
      <Text>Create your account to join {workspace}.</Text>
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="sm">
          <FormError error={error} />
          <TextInput label="First name" autoComplete="given-name" required {...form.getInputProps('first_name')} />
          <TextInput label="Last name" autoComplete="family-name" required {...form.getInputProps('last_name')} />
          <PasswordField label="Password" autoComplete="new-password" description="10 to 200 characters" required {...form.getInputProps('password')} />
          <Button type="submit" loading={pending}>
            Create account
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  );
}

function JoinWorkspace({ token, workspace }: { token: string; workspace: string }) {
  const done = useSignedIn();
  const { onSubmit, pending, error } = useApiForm({
    initialValues: {},
    submit: (_values, { idempotencyKey }) => setup({ token }, idempotencyKey),
    onSuccess: done,
  });
  return (
    <AuthLayout title="Join a workspace">
      <form onSubmit={onSubmit}>
        <Stack gap="sm">
          <FormError error={error} />
          <Text>You were invited to {workspace}. Join it with the account you are signed in with.</Text>
          <Button type="submit" loading={pending}>
            Join workspace
          </Button>
        </Stack>
      </form>
    </AuthLayout>
  );
}

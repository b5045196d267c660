import { Anchor, Button, Stack, TextInput } from '@mantine/core';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { safeNext } from '../../app/require-session.tsx';
import { PasswordField } from '../../components/password-field.tsx';
import { FormError, useApiForm } from '../../components/api-form.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { useResetSession } from '../../lib/session.ts';
import { AuthLayout } from './auth-layout.tsx';

export default function SignInPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const reset = useResetSession();
  const next = params.get('next');
  const { form, onSubmit, pending, error } = useApiForm({
    initialValues: { email: '', password: '' },
    submit: (body) => unwrap(api.POST('/api/auth/sign-in', { body })),
    onSuccess: async (answer) => {
      await reset(answer.data);
      // Someone in several workspaces picks one first, unless a page was asked for.
      navigate(!next && answer.data.workspaces.length > 1 ? '/workspaces' : safeNext(next), { replace: true });
    },
  });
  return (
    <AuthLayout title="Sign in">
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="sm">
          <FormError error={error} />
          <TextInput label="Email" type="email" autoComplete="username" required {...form.getInputProps('email')} />
          <PasswordField label="Password" autoComplete="current-password" required {...form.getInputProps('password')} />
          <Button type="submit" loading={pending}>
            Sign in
          </Button>
          <Anchor component={Link} to="/forgot-password" size="sm">
            Forgot password?
          </Anchor>
        </Stack>
      </form>
    </AuthLayout>
  );
}

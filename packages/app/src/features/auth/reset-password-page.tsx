import { Anchor, Button, Stack } from '@mantine/core';
import { Link, useNavigate, useParams } from 'react-router';
import { PasswordField } from '../../components/password-field.tsx';
import { FormError, useApiForm } from '../../components/api-form.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { useResetSession } from '../../lib/session.ts';
import { AuthLayout } from './auth-layout.tsx';

export default function ResetPasswordPage() {
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const reset = useResetSession();
  const { form, onSubmit, pending, error } = useApiForm({
    initialValues: { password: '' },
    validate: { password: (v) => (v.length < 10 ? 'Use at least 10 characters' : null) },
    submit: ({ password }) => unwrap(api.POST('/api/auth/reset-password', { body: { token, password } })),
    onSuccess: async (answer) => {
      await reset(answer.data);
      navigate('/', { replace: true });
    },
  });
  return (
    <AuthLayout title="Set a new password">
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="sm">
          <FormError error={error} />
          <PasswordField label="New password" autoComplete="new-password" description="10 to 200 characters" required {...form.getInputProps('password')} />
          <Button type="submit" loading={pending}>
            Set password
          </Button>
          <Anchor component={Link} to="/forgot-password" size="sm">
            Ask for a new link
          </Anchor>
        </Stack>
      </form>
    </AuthLayout>
  );
}

import { Alert, Anchor, Button, Stack, TextInput } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { FormError, useApiForm } from '../../components/api-form.tsx';
import { api, unwrap } from '../../lib/api.ts';
import { AuthLayout } from './auth-layout.tsx';

export default function ForgotPasswordPage() {
  const [sent, setSent] = useState(false);
  const { form, onSubmit, pending, error } = useApiForm({
    initialValues: { email: '' },
    submit: (body) => unwrap(api.POST('/api/auth/forgot-password', { body })),
    onSuccess: () => setSent(true),
  });
  return (
    <AuthLayout title="Reset your password">
      {sent ? (
        <Alert color="blue" role="status">
          If an account exists for that email, a link to reset the password is on its way. If none arrives, ask an owner or admin
          of your workspace for a setup link.
        </Alert>
      ) : (
        <form onSubmit={onSubmit} noValidate>
          <Stack gap="sm">
            <FormError error={error} />
            <TextInput label="Email" type="email" autoComplete="username" required {...form.getInputProps('email')} />
            <Button type="submit" loading={pending}>
              Send reset link
            </Button>
          </Stack>
        </form>
      )}
      <Anchor component={Link} to="/sign-in" size="sm">
        Back to sign in
      </Anchor>
    </AuthLayout>
  );
}

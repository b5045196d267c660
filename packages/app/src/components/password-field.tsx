import { TextInput, type TextInputProps } from '@mantine/core';

/**
 * A password input whose own <input> carries aria-invalid and aria-describedby
 * (Mantine's PasswordInput puts them on a wrapper around it, A2 wants them on the field).
 */
export function PasswordField(props: Omit<TextInputProps, 'type'>) {
  return <TextInput {...props} type="password" spellCheck={false} />;
}

import { Anchor, Text } from '@mantine/core';
import { Link } from 'react-router';
import { Page } from './page.tsx';

export function NotFound() {
  return (
    <Page title="Page not found">
      <Text>
        There is no page here. <Anchor component={Link} to="/">Go to the start</Anchor>
      </Text>
    </Page>
  );
}

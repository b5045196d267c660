// Clients (A3): the list, New client, the client's page and Edit.
import { Route, Routes } from 'react-router';
import { NotFound } from '../../components/not-found.tsx';
import { ClientFormPage } from './client-form.tsx';
import { ClientPage } from './client-page.tsx';
import { ClientsList } from './clients-list.tsx';

export default function ClientsRoutes() {
  return (
    <Routes>
      <Route index element={<ClientsList />} />
      <Route path="new" element={<ClientFormPage />} />
      <Route path=":id" element={<ClientPage />} />
      <Route path=":id/edit" element={<ClientFormPage />} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}

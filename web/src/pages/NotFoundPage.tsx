import { useTitle } from '../hooks';
import { href } from '../router';

export function NotFoundPage() {
  useTitle('Not found');
  return (
    <section className="page">
      <h1>Page not found</h1>
      <p>
        There is nothing at this address. Go to your <a href={href(['prompts'])}>prompts</a> or use the menu above.
      </p>
    </section>
  );
}

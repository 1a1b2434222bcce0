export function Labels({ labels, className = 'tag' }: { labels: readonly string[]; className?: string }) {
  if (labels.length === 0) return null;
  return (
    <ul className="tags" aria-label="Labels">
      {labels.map((label) => (
        <li key={label} className={className}>
          {label}
        </li>
      ))}
    </ul>
  );
}

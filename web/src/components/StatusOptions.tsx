/** The options of a prompt status select. */
export function StatusOptions() {
  return (
    <>
      <option value="draft">Draft</option>
      <option value="published">Published</option>
    </>
  );
}

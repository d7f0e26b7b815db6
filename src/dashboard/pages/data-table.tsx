import type { Child, FC } from 'hono/jsx';

/**
 * The dashboard's one table shape: column headers, rows, and a wrapper that scrolls sideways so
 * the page itself never does (it stays readable at 200 % zoom).
 */
export const DataTable: FC<{
  columns: readonly string[];
  caption?: Child;
  captionClass?: string;
  children?: Child;
}> = ({ columns, caption, captionClass, children }) => (
  <div class="table-wrap">
    <table>
      {caption === undefined ? null : captionClass ? (
        <caption class={captionClass}>{caption}</caption>
      ) : (
        <caption>{caption}</caption>
      )}
      <thead>
        <tr>
          {columns.map((c) => (
            <th scope="col">{c}</th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  </div>
);

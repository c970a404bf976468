/** The header row of a data table: one header per column name, then (withActions) the row-buttons column, named for screen readers only. */
export function TableHead({ columns, withActions = false }: { columns: readonly string[]; withActions?: boolean }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th key={column} scope="col">
            {column}
          </th>
        ))}
        {withActions && (
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

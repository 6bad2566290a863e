package nni.shell.internal.command;

import java.util.ArrayList;
import java.util.List;

/**
 * Columns for the console: a header row and rows of cells, each column as wide as its widest cell,
 * two spaces between columns, the last column not padded. Cells that are null print as {@code -}.
 */
final class TextTable {

    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();

    TextTable(List<String> header) {
        this.header = List.copyOf(header);
    }

    TextTable add(List<?> cells) {
        if (cells.size() != header.size()) {
            throw new IllegalArgumentException("a row of " + cells.size() + " cells in a table of " + header.size() + " columns");
        }
        rows.add(cells.stream().map(cell -> cell == null ? "-" : cell.toString()).toList());
        return this;
    }

    int size() {
        return rows.size();
    }

    @Override
    public String toString() {
        int[] widths = new int[header.size()];
        for (List<String> row : concat()) {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        StringBuilder text = new StringBuilder();
        for (List<String> row : concat()) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                line.append(i == row.size() - 1 ? row.get(i) : String.format("%-" + widths[i] + "s  ", row.get(i)));
            }
            text.append(line.toString().stripTrailing()).append('\n');
        }
        return text.toString();
    }

    private List<List<String>> concat() {
        List<List<String>> all = new ArrayList<>();
        all.add(header);
        all.addAll(rows);
        return all;
    }
}

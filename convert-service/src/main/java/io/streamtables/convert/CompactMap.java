package io.streamtables.convert;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A map column's value as the compiled decoder makes it: its entries in one array, in the record's order as the
 * reference's {@code LinkedHashMap} keeps them. 24 bytes an entry where a {@code LinkedHashMap} takes 40 and a table
 * of its own. Unmodifiable: the writers only read it.
 */
final class CompactMap extends AbstractMap<Object, Object> {

    private final Entry<Object, Object>[] entries;
    private final int size;

    private CompactMap(Entry<Object, Object>[] entries, int size) {
        this.entries = entries;
        this.size = size;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Set<Entry<Object, Object>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public int size() {
                return size;
            }

            @Override
            public Iterator<Entry<Object, Object>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < size;
                    }

                    @Override
                    public Entry<Object, Object> next() {
                        if (next >= size) {
                            throw new NoSuchElementException();
                        }
                        return entries[next++];
                    }
                };
            }
        };
    }

    /** Entries in order, each key once. */
    static final class Builder {
        /** Up to this many keys a new one is compared with each; past it a set finds them (a map may have 10 000). */
        private static final int SCANNED = 16;

        private Entry<Object, Object>[] entries;
        private int size;
        private Set<Object> keys;

        /** @param expected the size to make room for: the last map's, when the maps of a column are alike */
        @SuppressWarnings("unchecked")
        Builder(int expected) {
            entries = new Entry[Math.max(4, Math.min(expected, 1_024))];
        }

        /** Adds the entry; false, adding nothing, when the key is there already. */
        boolean add(Object key, Object value) {
            if (keys != null) {
                if (!keys.add(key)) {
                    return false;
                }
            } else {
                for (int i = 0; i < size; i++) {
                    if (entries[i].getKey().equals(key)) {
                        return false;
                    }
                }
                if (size == SCANNED) {
                    keys = new HashSet<>();
                    for (int i = 0; i < size; i++) {
                        keys.add(entries[i].getKey());
                    }
                    keys.add(key);
                }
            }
            if (size == entries.length) {
                entries = Arrays.copyOf(entries, size * 2);
            }
            entries[size++] = new SimpleImmutableEntry<>(key, value);
            return true;
        }

        int size() {
            return size;
        }

        CompactMap build() {
            return new CompactMap(entries, size);
        }
    }
}

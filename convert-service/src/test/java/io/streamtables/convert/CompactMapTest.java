package io.streamtables.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;

class CompactMapTest {

    /** Maps of 0 to 40 entries, from builders sized too small and too large: as a LinkedHashMap of the same puts. */
    @Test
    void equalsTheLinkedHashMapOfItsEntries() {
        for (int n = 0; n <= 40; n++) {
            for (int expected : new int[] {0, n, 1_000}) {
                CompactMap.Builder builder = new CompactMap.Builder(expected);
                Map<Object, Object> reference = new LinkedHashMap<>();
                for (int i = 0; i < n; i++) {
                    String key = "k" + (i * 7919 % 97);
                    Object value = i % 5 == 0 ? null : i;
                    assertTrue(builder.add(StringValues.of(key), value));
                    reference.put(StringValues.of(key), value);
                }
                CompactMap map = builder.build();
                assertEquals(reference, map);
                assertEquals(map, reference);
                assertEquals(reference.hashCode(), map.hashCode());
                assertEquals(new ArrayList<>(reference.keySet()), new ArrayList<>(map.keySet()), "in order");
                assertEquals(n, builder.size());
            }
        }
    }

    /** A key twice is refused whether the builder compares it with each key or finds it in its set (past 16). */
    @Test
    void aKeyTwiceIsRefused() {
        for (int n : new int[] {1, 5, 16, 17, 100}) {
            CompactMap.Builder builder = new CompactMap.Builder(0);
            for (int i = 0; i < n; i++) {
                assertTrue(builder.add(StringValues.of("k" + i), i));
            }
            for (int i = 0; i < n; i++) {
                assertFalse(builder.add(StringValues.of("k" + i), -1), n + " keys, k" + i);
            }
            CompactMap map = builder.build();
            assertEquals(n, map.size());
            assertEquals(0, map.get(StringValues.of("k0")));
            assertNull(map.get(StringValues.of("k" + n)));
        }
    }

    @Test
    void itsIteratorEnds() {
        CompactMap.Builder builder = new CompactMap.Builder(2);
        builder.add(StringValues.of("a"), 1);
        Iterator<Map.Entry<Object, Object>> it = builder.build().entrySet().iterator();
        List<Object> keys = new ArrayList<>();
        while (it.hasNext()) {
            keys.add(it.next().getKey());
        }
        assertEquals(List.of(StringValues.of("a")), keys);
        assertThrows(NoSuchElementException.class, it::next);
        assertThrows(UnsupportedOperationException.class, () -> builder.build().put("b", 2));
    }
}

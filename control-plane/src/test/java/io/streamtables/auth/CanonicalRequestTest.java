package io.streamtables.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The canonical request's rules one by one, as SigV4 defines them for every service but S3. */
class CanonicalRequestTest {

    @Test
    void thePathIsNormalizedAndEncodedOnceMore() {
        assertEquals("/", CanonicalRequest.uri(""));
        assertEquals("/", CanonicalRequest.uri("/"));
        assertEquals("/example/", CanonicalRequest.uri("//example//"));
        assertEquals("/", CanonicalRequest.uri("/example1/example2/../.."));
        assertEquals("/example", CanonicalRequest.uri("/./example"));
        assertEquals("/example%20space/", CanonicalRequest.uri("/example space/"));
        assertEquals("/a%2520b", CanonicalRequest.uri("/a%20b"), "the clients encode the path they sent once more");
        assertEquals("/%E1%88%B4", CanonicalRequest.uri("/\u1234"));
        assertEquals("/-._~0aZ", CanonicalRequest.uri("/-._~0aZ"));
    }

    @Test
    void queryParametersAreDecodedEncodedAndSortedByNameThenValue() {
        assertEquals("", CanonicalRequest.query(null));
        assertEquals("%E1%88%B4=Value1&Param=Value2&Param-3=Value3",
                CanonicalRequest.query("Param-3=Value3&Param=Value2&%E1%88%B4=Value1"));
        assertEquals("a=0&a=1&b=", CanonicalRequest.query("b&a=1&a=0"));
        assertEquals("x=1%202&y=%2B", CanonicalRequest.query("x=1%202&y=+"), "a plus is a plus, not a space");
        assertEquals("k=a%2Fb", CanonicalRequest.query("k=a/b"));
        assertThrows(CanonicalRequest.Unsignable.class, () -> CanonicalRequest.query("x=%zz"));
        assertThrows(CanonicalRequest.Unsignable.class, () -> CanonicalRequest.query("x=%2"));
    }

    @Test
    void headerValuesAreTrimmedCollapsedAndRepeatedOnesJoined() {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("my-header1", new ArrayList<>(List.of("value2", "value2", "value1")));
        headers.put("my-header2", List.of("  a \t  b   c  "));
        assertEquals("value2,value2,value1", CanonicalRequest.headerValue(headers, "my-header1"));
        assertEquals("a b c", CanonicalRequest.headerValue(headers, "my-header2"));
        assertThrows(CanonicalRequest.Unsignable.class, () -> CanonicalRequest.headerValue(headers, "absent"));
    }

    @Test
    void theCanonicalRequestHasOnlyTheSignedHeadersInTheirOrder() {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("x-amz-date", List.of("20150830T123600Z"));
        headers.put("host", List.of("example.amazonaws.com"));
        headers.put("user-agent", List.of("not signed"));
        headers.put("content-type", List.of("application/x-www-form-urlencoded"));
        ReceivedRequest request = new ReceivedRequest("POST", "/", "b=2&a=1", headers, null);
        assertEquals("""
                POST
                /
                a=1&b=2
                content-type:application/x-www-form-urlencoded
                host:example.amazonaws.com
                x-amz-date:20150830T123600Z

                content-type;host;x-amz-date
                e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855""",
                CanonicalRequest.of(request, List.of("content-type", "host", "x-amz-date"),
                        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    }
}

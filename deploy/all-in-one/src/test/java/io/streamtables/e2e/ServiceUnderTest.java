package io.streamtables.e2e;

import java.io.IOException;

/** A running service a fixture talks to: the channel API on {@link #url()}, and its log for failure messages. */
interface ServiceUnderTest {

    String url();

    /** The last lines of the log (of every process, for a deployment of several). */
    String tail() throws IOException;
}

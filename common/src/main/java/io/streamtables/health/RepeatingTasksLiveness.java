package io.streamtables.health;

import io.streamtables.tasks.Repeating;
import io.streamtables.config.LivenessConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;

/**
 * DOWN while a run of a repeating task (the commit tick, the channels' reading, the lease renewal, ...) has lasted
 * longer than {@code delivery.liveness.task-timeout}: a call that a half-open connection never answers stops the
 * task, for every channel, while the process still answers; the orchestrator restarts it.
 */
@Liveness
@ApplicationScoped
public class RepeatingTasksLiveness implements HealthCheck {

    private final Duration bound;

    @Inject
    public RepeatingTasksLiveness(LivenessConfig config) {
        this(config.taskTimeout());
    }

    public RepeatingTasksLiveness(Duration bound) {
        this.bound = bound;
    }

    @Override
    public HealthCheckResponse call() {
        Optional<Repeating.Run> longest = Repeating.longestRun().filter(run -> run.elapsed().compareTo(bound) > 0);
        if (longest.isEmpty()) {
            return HealthCheckResponse.up("repeating tasks");
        }
        return HealthCheckResponse.named("repeating tasks").down()
                .withData("task", longest.get().what())
                .withData("running", longest.get().elapsed().toSeconds() + " s")
                .withData("fix", "a call has had no answer for longer than delivery.liveness.task-timeout (" + bound
                        .toSeconds() + " s): the log names the peer; restarting the process frees the task").build();
    }
}

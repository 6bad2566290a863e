package nni.itest.keeper;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.EnvironmentListener;
import nni.api.environment.EnvironmentSpec;
import nni.api.environment.LaunchedEnvironment;

/** Starts nothing: the test itself plays the keeper over HTTP with the spec's id and token. */
public final class CapturingLauncher implements EnvironmentLauncher {

    public final List<EnvironmentSpec> specs = new CopyOnWriteArrayList<>();
    public final List<CompletableFuture<String>> ends = new CopyOnWriteArrayList<>();

    @Override
    public LaunchedEnvironment start(EnvironmentSpec spec, EnvironmentListener listener) {
        CompletableFuture<String> ended = new CompletableFuture<>();
        specs.add(spec);
        ends.add(ended);
        return new LaunchedEnvironment() {
            @Override
            public CompletionStage<String> ended() {
                return ended;
            }

            @Override
            public void stop() {
                ended.complete("stopped");
            }
        };
    }
}

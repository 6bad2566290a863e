package nni.trialkeeper;

import java.util.List;

/** {@code java -jar nni-trialkeeper.jar trial|runner ...}: see {@link KeeperOptions} and {@link Keeper}. */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        KeeperOptions options;
        try {
            options = KeeperOptions.parse(List.of(args), System.getenv());
        } catch (KeeperOptions.UsageException e) {
            System.err.println("nni-trialkeeper " + Keeper.VERSION + ": " + e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(new Keeper(options).run());
    }
}

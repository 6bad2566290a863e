package nni.trialkeeper;

import java.util.List;

/** {@code java -jar nni-trialkeeper.jar trial|runner ...}: see {@link KeeperOptions} and {@link Keeper}. */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
            System.out.print(String.format(KeeperOptions.USAGE, "java -jar nni-trialkeeper.jar"));
            System.exit(0);
            return;
        }
        if (args.length == 1 && args[0].equals("--version")) {
            System.out.println(Keeper.versionLine());
            System.exit(0);
            return;
        }
        KeeperOptions options;
        try {
            options = KeeperOptions.parse(List.of(args), System.getenv());
        } catch (KeeperOptions.UsageException e) {
            System.err.println("nni-trialkeeper " + Keeper.VERSION + ": " + e.getMessage() + " (--help shows the usage)");
            System.exit(2);
            return;
        }
        Keeper keeper;
        try {
            keeper = new Keeper(options);
        } catch (java.io.IOException e) {
            System.err.println("nni-trialkeeper " + Keeper.VERSION + ": cannot start: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(keeper.run());
    }
}

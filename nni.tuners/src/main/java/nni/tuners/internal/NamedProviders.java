package nni.tuners.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import org.osgi.framework.ServiceReference;

import nni.api.tuner.TunerProvider;

/**
 * The providers of one kind (tuners or assessors) in the service registry, by their
 * {@value TunerProvider#ALGORITHM} name matched ignoring case; of two with one name the
 * best-ranked answers ({@link ServiceReference#compareTo}), as the manager lists them. Thread-safe:
 * bound and unbound by SCR on its threads, read on the experiments'.
 */
final class NamedProviders<T> {

    private record Entry<T>(String name, ServiceReference<?> reference, T provider) {
    }

    private final List<Entry<T>> entries = new ArrayList<>();

    /** @param reference its service's reference; null for a provider given in a test, ranked below the others */
    synchronized void add(ServiceReference<?> reference, T provider) {
        Object name = reference == null ? null : reference.getProperty(TunerProvider.ALGORITHM);
        if (name != null) {
            add(String.valueOf(name), reference, provider);
        }
    }

    synchronized void add(String name, ServiceReference<?> reference, T provider) {
        entries.add(new Entry<>(name.trim(), reference, provider));
    }

    synchronized void remove(ServiceReference<?> reference) {
        entries.removeIf(entry -> entry.reference() != null && entry.reference().equals(reference));
    }

    /** @return the provider answering to the name, or empty */
    synchronized Optional<T> get(String name) {
        Entry<T> best = null;
        for (Entry<T> entry : entries) {
            if (entry.name().toLowerCase(Locale.ROOT).equals(name.trim().toLowerCase(Locale.ROOT))
                    && (best == null || ranksAbove(entry, best))) {
                best = entry;
            }
        }
        return best == null ? Optional.empty() : Optional.of(best.provider());
    }

    private static boolean ranksAbove(Entry<?> entry, Entry<?> other) {
        if (other.reference() == null) {
            return entry.reference() != null;
        }
        return entry.reference() != null && entry.reference().compareTo(other.reference()) > 0;
    }

    /** @return the names, as their providers spell them, sorted ignoring case, each once */
    synchronized List<String> names() {
        List<String> names = new ArrayList<>();
        for (Entry<T> entry : entries) {
            if (names.stream().noneMatch(entry.name()::equalsIgnoreCase)) {
                names.add(entry.name());
            }
        }
        names.sort(String.CASE_INSENSITIVE_ORDER);
        return names;
    }
}

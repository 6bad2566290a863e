package nni.manager.internal.registry;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;

/**
 * Services of one type indexed by a name service property: what the manager keeps of platforms,
 * tuners and assessors. Several services may claim one name; the framework's ranking order
 * ({@link ServiceReference#compareTo}: higher ranking, then lower id) decides which one answers,
 * the others are shadowed until it leaves. Thread-safe.
 *
 * @param <S> the service type
 */
public final class NamedServices<S> {

    /** A bound service with its name and where it comes from. */
    public record Entry<S>(String name, ServiceReference<?> reference, S service) {
        public String bundleName() {
            return reference.getBundle() == null ? "?" : reference.getBundle().getSymbolicName();
        }

        public String bundleVersion() {
            return reference.getBundle() == null ? "?" : reference.getBundle().getVersion().toString();
        }
    }

    private static final Comparator<Entry<?>> BEST_FIRST =
            (a, b) -> b.reference().compareTo(a.reference());

    private final String property;
    private final UnaryOperator<String> keyOf;
    private final Map<String, List<Entry<S>>> byKey = new TreeMap<>();

    /**
     * @param property the service property holding the name
     * @param keyOf    how names compare (identity, or lower-casing for names matched ignoring case)
     */
    public NamedServices(String property, UnaryOperator<String> keyOf) {
        this.property = property;
        this.keyOf = keyOf;
    }

    /** @return the name a reference claims, or empty when it has no usable name property */
    public Optional<String> nameOf(ServiceReference<?> reference) {
        Object value = reference.getProperty(property);
        return value instanceof String s && !s.isBlank() ? Optional.of(s.trim()) : Optional.empty();
    }

    /** @return the entry added, or empty if the reference has no name */
    public synchronized Optional<Entry<S>> add(ServiceReference<?> reference, S service) {
        Optional<String> name = nameOf(reference);
        name.ifPresent(n -> {
            List<Entry<S>> claims = byKey.computeIfAbsent(keyOf.apply(n), k -> new ArrayList<>());
            claims.add(new Entry<>(n, reference, service));
            claims.sort(BEST_FIRST);
        });
        return name.flatMap(n -> byKey.get(keyOf.apply(n)).stream().filter(e -> e.reference().equals(reference)).findFirst());
    }

    /** @return the entry removed, or empty if it was not there */
    public synchronized Optional<Entry<S>> remove(ServiceReference<?> reference) {
        for (var it = byKey.values().iterator(); it.hasNext();) {
            List<Entry<S>> claims = it.next();
            for (Entry<S> entry : claims) {
                if (entry.reference().equals(reference)) {
                    claims.remove(entry);
                    if (claims.isEmpty()) {
                        it.remove();
                    }
                    return Optional.of(entry);
                }
            }
        }
        return Optional.empty();
    }

    /** @return whether the service registered with this {@code service.id} is held, answering to its name or not */
    public synchronized boolean contains(long serviceId) {
        return byKey.values().stream().flatMap(List::stream).anyMatch(entry -> serviceId(entry.reference()) == serviceId);
    }

    static long serviceId(ServiceReference<?> reference) {
        return (Long) reference.getProperty(Constants.SERVICE_ID);
    }

    /** @return the service that answers to {@code name} */
    public synchronized Optional<Entry<S>> get(String name) {
        List<Entry<S>> claims = byKey.get(keyOf.apply(name));
        return claims == null ? Optional.empty() : Optional.of(claims.get(0));
    }

    /** @return the answering service of every name, ordered by name */
    public synchronized List<Entry<S>> active() {
        return byKey.values().stream().map(claims -> claims.get(0)).toList();
    }

    /** @return services that claim a name another service answers to */
    public synchronized List<Entry<S>> shadowed() {
        return byKey.values().stream().flatMap(claims -> claims.stream().skip(1)).toList();
    }

    /** @return the names that have a service, ordered, as the services spell them */
    public List<String> names() {
        return active().stream().map(Entry::name).toList();
    }
}

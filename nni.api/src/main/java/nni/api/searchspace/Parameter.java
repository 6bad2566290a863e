package nni.api.searchspace;

import java.util.List;

/**
 * One parameter of a search space.
 *
 * <p>Tuners work in NNI's internal representation: a categorical parameter (choice, randint) is an
 * index {@code 0..size()-1}; a uniform-family parameter is a number in {@code [low(), high()]}, in log
 * space for the log types; a normal-family parameter is a draw of normal({@code mu()}, {@code sigma()})
 * (of the logarithm for the log types). {@link #value(double)} turns an internal value into what the
 * trial sees.
 *
 * @param name    the key in the search space
 * @param type    the {@code _type}
 * @param options a choice's options (empty for other types)
 * @param args    the numeric {@code _value} arguments as written (empty for choice)
 */
public record Parameter(String name, ParameterType type, List<Option> options, List<Double> args) {

    public Parameter {
        options = List.copyOf(options);
        args = List.copyOf(args);
    }

    /** @return the number of indices of a categorical parameter (randint: {@code ceil(upper) - ceil(lower)}) */
    public int size() {
        return switch (type) {
            case CHOICE -> options.size();
            case RANDINT -> (int) (Math.ceil(args.get(1)) - Math.ceil(args.get(0)));
            default -> throw new IllegalStateException(name + " is not categorical");
        };
    }

    /** @return the lower bound in internal space (log of it for log types) */
    public double low() {
        return type.logarithmic() ? Math.log(args.get(0)) : args.get(0);
    }

    /** @return the upper bound in internal space (log of it for log types) */
    public double high() {
        return type.logarithmic() ? Math.log(args.get(1)) : args.get(1);
    }

    /** @return the mean of a normal-family parameter */
    public double mu() {
        return args.get(0);
    }

    /** @return the standard deviation of a normal-family parameter */
    public double sigma() {
        return args.get(1);
    }

    /** @return the quantum of a q type, or 0 */
    public double q() {
        return type.quantized() ? args.get(2) : 0;
    }

    /** @return the option a categorical index picks for a choice */
    public Option option(int index) {
        return options.get(index);
    }

    /**
     * Turns an internal value into the value a trial sees, with NNI's rounding (half to even) and
     * clipping: q types round to a multiple of q, uniform-family q types are clipped to the bounds,
     * log types are exponentiated.
     *
     * @return an Integer for randint, the option's value for choice (a nested option's value is its
     *         {@code _name}; callers build the nested mapping), a Double otherwise
     */
    public Object value(double internal) {
        switch (type) {
            case CHOICE:
                Option option = options.get((int) internal);
                return option.nested() ? option.name() : option.value();
            case RANDINT:
                return (int) (Math.ceil(args.get(0)) + (int) internal);
            default:
                double value = type.logarithmic() ? Math.exp(internal) : internal;
                if (type.quantized()) {
                    value = Math.rint(value / q()) * q();
                    if (!type.normal()) {
                        value = Math.min(Math.max(value, args.get(0)), args.get(1));
                    }
                }
                return value;
        }
    }
}
